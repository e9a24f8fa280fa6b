// Starting one subscriber's values on a pool's lanes within the pool's in-flight bound: values a
// source pushes (onStreams) or values pulled from a source one at a time (lanesFrom, framesFrom).
import type { Subscriber } from 'rxjs';
import type { Device } from '../../core/api/device.js';
import { received, typeError } from '../../core/base/errors.js';
import type { Memory } from '../../core/api/memory.js';
import { isThenable } from '../../core/base/thenable.js';
import { LanePool, type LanePoolOptions } from './lane-pool.js';
import { PipelineError, Work, type AnyWork, makeWork, adoptMemory, releaseValueWhenDone, releaseValue } from './work.js';

/** Where values go: a device, several devices, or a pool of lanes that outlives subscriptions. */
export type LaneTarget = Device | readonly Device[] | LanePool;

/** A value a source gave, with the pooled frame that carries it (framesFrom's), if any. */
export interface Pulled<T> {
  readonly value: T;
  readonly frame?: Memory;
}

/** Throws a TypeError for a closed pool. */
export function checkOpenPool(pool: LanePool): void {
  if (pool.closed) typeError('target', 'an open LanePool', received('a closed LanePool'));
}

/**
 * Starts values on lanes within the pool's in-flight bound, for one subscriber: each on the least
 * loaded device's least loaded lane. `onPlaceFree` is called whenever a value on the pool (this
 * subscriber's or another pipeline's) finished and another may start, until `stop`.
 * @throws TypeError for a pool closed since the operator was made.
 */
export function dispatcher<T>(subscriber: Subscriber<Work<T>>, target: LaneTarget, options: LanePoolOptions | undefined, onPlaceFree: () => void) {
  const owned = !(target instanceof LanePool);
  if (!owned) checkOpenPool(target);
  const pool = target instanceof LanePool ? target : new LanePool(target, options);
  let index = 0;
  let next = 0; // where the search for the least loaded lane starts: round robin among equals
  let mine = 0; // this subscriber's values in flight
  let sourceDone = false;
  let stopped = false;
  const member = pool.engine.attach(onPlaceFree);
  const finishIfDone = () => {
    if (sourceDone && mine === 0) subscriber.complete();
  };
  const finished = (work: AnyWork) => {
    mine--;
    work.lane.engine.countInFlight(-1); // offers the place to the pool's pipelines, this one included
    if (!stopped) finishIfDone();
  };
  /**
   * Starts `value` on the least loaded lane; `frame`, taken from the pool, goes back with its
   * work. `reserved`: the value takes a place the pool held for it (see `pulling`).
   */
  const start = (value: T, frame?: Memory, reserved = false): void => {
    if (reserved) pool.engine.unreserve(true);
    const i = index++;
    const lane = pool.engine.leastLoaded(next);
    if (!lane) return subscriber.error(new PipelineError('onStreams', i, pool.device.poisoned)); // every device is broken
    next = lane.index + 1;
    member.took();
    mine++;
    lane.countInFlight(+1);
    const work = makeWork(value, i, pool.lanes[lane.index]!, finished);
    if (frame) adoptMemory(work, frame);
    try {
      subscriber.next(work);
    } catch (error) {
      subscriber.error(new PipelineError('onStreams', i, error));
    }
    // Everything downstream enqueued synchronously is covered by this release (at once, when
    // an operator's completion point behind all of it holds the value already).
    try {
      releaseValueWhenDone(work);
    } catch {
      releaseValue(work); // the device broke: nothing more of it runs, nor will it tell
    }
  };
  /** The source has no more values; complete once those in flight are done. */
  const finish = (): void => {
    sourceDone = true;
    finishIfDone();
  };
  return {
    pool,
    start,
    finish,
    /**
     * A function that pulls values while the pool has a free place, one pull at a time (call it
     * from `onSlot` and once to begin): `take(index)` gives, or resolves to, value number `index`,
     * or undefined when there are no more. The place is held for the value before `take` is
     * asked, so that pipelines sharing the pool never pass its bound while a value is on its
     * way; a value that arrives once the subscriber has gone goes back (its frame to the pool).
     * A value given synchronously starts at once, in the turn its place was freed. What `take`
     * throws or rejects with errors the subscriber.
     */
    pulling(take: (index: number) => Pulled<T> | undefined | PromiseLike<Pulled<T> | undefined>): () => void {
      let busy = false;
      let exhausted = false;
      // What a pull gave: the value starts in the place held for it, or the place is given back.
      const arrived = (pulled: Pulled<T> | undefined): void => {
        if (pulled === undefined) {
          exhausted = true;
          pool.engine.unreserve(false);
          finish();
        } else if (stopped || subscriber.closed) {
          pool.engine.unreserve(false);
          if (pulled.frame) pool.engine.give(pulled.frame);
        } else start(pulled.value, pulled.frame, true);
      };
      // A value that comes later: the pulls go on once it has arrived (busy until then).
      const later = async (taken: PromiseLike<Pulled<T> | undefined>): Promise<void> => {
        try {
          let pulled: Pulled<T> | undefined;
          try {
            pulled = await taken;
          } catch (error) {
            pool.engine.unreserve(false);
            throw error;
          }
          arrived(pulled);
        } catch (error) {
          busy = false;
          return subscriber.error(error);
        }
        busy = false;
        pull();
      };
      // Synchronous while `take` is: a source that gives its values at once costs no Promise per value.
      const pull = (): void => {
        if (busy || exhausted) return;
        busy = true;
        try {
          while (!exhausted && !stopped && !subscriber.closed && pool.engine.reserve()) {
            let taken: Pulled<T> | undefined | PromiseLike<Pulled<T> | undefined>;
            try {
              taken = take(index);
            } catch (error) {
              pool.engine.unreserve(false);
              throw error;
            }
            if (isThenable(taken)) return void later(taken);
            arrived(taken);
          }
        } catch (error) {
          busy = false;
          return subscriber.error(error);
        }
        busy = false;
      };
      return pull;
    },
    stop(): void {
      stopped = true;
      member.detach();
      // Work already enqueued runs to completion: closing streams and memory waits for it.
      if (owned) pool.close();
    },
  };
}
