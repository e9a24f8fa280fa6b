import { Observable, type OperatorFunction, type Subscription } from 'rxjs';
import { Device } from '../core/api/device.js';
import { checkDType, type DType } from '../core/base/dtype.js';
import { checkCount, isArray, isInstance, typeError } from '../core/base/errors.js';
import { checkOptions } from '../core/base/options.js';
import { checkHostLength, type HostArray } from '../core/api/memory.js';
import { isThenable } from '../core/base/thenable.js';
import { checkOpenPool, dispatcher, type LaneTarget } from './pipeline/dispatcher.js';
import { LanePool, type LanePoolOptions } from './pipeline/lane-pool.js';
import { LANE_POOL_OPTIONS } from './pipeline/pool-options.js';
import type { Work } from './pipeline/work.js';
import { closeIterator, unsubscribeFenced } from './pipeline/teardown.js';

/** The options {@link framesFrom} takes: its frames', and a lane pool's. */
const FRAMES_OPTIONS: readonly string[] = ['count', 'dtype', 'length', ...LANE_POOL_OPTIONS];

export type { LaneTarget } from './pipeline/dispatcher.js';

/**
 * Throws unless `target` can be given to {@link LanePool} (checked further there) or is an open
 * one, beside which `options` may only repeat the pool's own.
 */
function checkTarget(target: unknown, options: LanePoolOptions | undefined): void {
  checkOptions('options', options, LANE_POOL_OPTIONS);
  if (isInstance(target, LanePool)) {
    checkOpenPool(target);
    if (options) target.engine.checkSame(options);
  } else if (!isInstance(target, Device) && !isArray(target)) typeError('target', 'a Device, an array of Devices or a LanePool', target);
}

/**
 * Binds each value to a stream lane, on the device with the fewest values in flight and there the
 * lane with the fewest (round robin among equals), with at most `inFlight` values whose device work
 * has not finished; values beyond that wait here, in arrival order, until one finishes.
 * Over several devices (`onStreams(Device.all(), { lanesPerDevice: 2 })`), a value's work stays on
 * its lane's device: its pooled memory is that device's, and a kernel launched there is loaded
 * there on its first launch. What a broken device does is `onDeviceFault`'s choice.
 * (A push source faster than the device fills that queue: for sources that can wait, such as
 * async iterables of frames, use {@link lanesFrom}, which pulls only when a slot is free.)
 *
 * Use it first in a GPU pipeline: the operators after it (`upload`, `launch`, `host`,
 * `download`, `completed`) enqueue on the value's lane and re-emit at once.
 *
 * @example
 * frames$.pipe(
 *   onStreams(Device.default(), { lanes: 3, inFlight: 6 }),
 *   upload((frame) => frame.pixels),
 *   launch(invert, { grid: 64, block: 256 }, [(w) => w.buffers.input, n]),
 *   download((w) => w.buffers.input),
 * ).subscribe((w) => show(w.results.output));
 *
 * @param target a device or an array of devices (a pool is made for the subscription and closed
 * after it), or a {@link LanePool} that outlives it.
 * @param options lanes per device, the in-flight bound and more, when `target` is not a pool.
 * @returns an operator from values to {@link Work} envelopes.
 * @throws TypeError for a bad or closed `target` and RangeError for options beside a pool that
 * differ from its own (at once); TypeError or RangeError for bad devices or options, and
 * TypeError for a pool closed since, to the subscriber; errors of the source reach the
 * subscriber as they are.
 * @see LanePool
 */
export function onStreams<T>(target: LaneTarget, options?: LanePoolOptions): OperatorFunction<T, Work<T>> {
  checkTarget(target, options);
  return (source) =>
    new Observable<Work<T>>((subscriber) => {
      const waiting = new Waiting<T>();
      const lanes = dispatcher(subscriber, target, options, () => {
        while (!lanes.pool.engine.full && waiting.size > 0) lanes.start(waiting.take());
        if (waiting.size === 0 && sourceDone) lanes.finish();
      });
      let sourceDone = false;
      let subscription: Subscription;
      try {
        subscription = source.subscribe({
          next: (value) => (lanes.pool.engine.full ? waiting.add(value) : lanes.start(value)),
          error: (error) => subscriber.error(error),
          complete: () => {
            sourceDone = true;
            if (waiting.size === 0) lanes.finish();
          },
        });
      } catch (error) {
        lanes.stop(); // no teardown is registered for a subscribe that throws
        throw error;
      }
      return () => {
        waiting.clear();
        unsubscribeFenced(subscription, subscriber, "onStreams's unsubscribe from its source");
        lanes.stop();
      };
    });
}

/**
 * Values waiting for a place in flight, in arrival order: an array read from a head index, as
 * `shift()` on a long array (a source that pushed 10^5 values at once) moved all of it each time.
 */
class Waiting<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }

  add(value: T): void {
    this.#items.push(value);
  }

  take(): T {
    const value = this.#items[this.#head] as T;
    this.#items[this.#head++] = undefined;
    if (this.#head === this.#items.length) this.clear();
    else if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items.splice(0, this.#head);
      this.#head = 0;
    }
    return value;
  }

  clear(): void {
    this.#items = [];
    this.#head = 0;
  }
}

/**
 * A function that starts iterating `iterable` (async first), or a TypeError when it is neither
 * an iterable nor an async iterable.
 */
function iteratorOf<T>(iterable: AsyncIterable<T> | Iterable<T>): () => AsyncIterator<T> | Iterator<T> {
  const source = iterable as Partial<AsyncIterable<T> & Iterable<T>> | null | undefined;
  let async: unknown, sync: unknown;
  try {
    async = source?.[Symbol.asyncIterator];
    if (typeof async !== 'function') sync = source?.[Symbol.iterator];
  } catch {
    // a revoked proxy, or a getter that throws: refused below, by name
  }
  if (typeof async === 'function') return () => async.call(source);
  if (typeof sync === 'function') return () => sync.call(source);
  return typeError('iterable', 'an iterable or an async iterable', iterable);
}

/**
 * Pulls values from an (async) iterable onto stream lanes, taking the next one only when a value
 * in flight has finished: an endless source of frames runs in constant memory.
 *
 * @example
 * lanesFrom(camera.frames(), device, { lanes: 3 }).pipe(upload((f) => f.pixels), ...)
 *
 * @param iterable the values, pulled one at a time.
 * @param target a device, devices or a {@link LanePool}, as for {@link onStreams}.
 * @param options lanes and the in-flight bound, when `target` is not a pool.
 * @returns an Observable of {@link Work} envelopes; unsubscribing stops pulling.
 * @throws TypeError for a non-iterable, or a bad `target`, `options` as {@link onStreams} (at
 * once); the iterable's errors, to the subscriber, as they are.
 * @see onStreams
 */
export function lanesFrom<T>(iterable: AsyncIterable<T> | Iterable<T>, target: LaneTarget, options?: LanePoolOptions): Observable<Work<T>> {
  const iterate = iteratorOf(iterable);
  checkTarget(target, options);
  return new Observable<Work<T>>((subscriber) => {
    const lanes = dispatcher(subscriber, target, options, () => pull());
    let iterator: AsyncIterator<T> | Iterator<T>;
    try {
      iterator = iterate();
    } catch (error) {
      lanes.stop();
      throw error;
    }
    // Whether the iteration is open: neither done nor failed, so that leaving it early calls
    // `return()`, as `for await … of` does (and not after `next()` threw, as it does not).
    let open = true;
    const failed = (error: unknown): never => {
      open = false;
      throw error;
    };
    // One answer for every pull: pulls come one at a time, and each answer is read at once.
    const answer = { value: undefined as T };
    const pulled = (result: IteratorResult<T>) => {
      open = false; // until the result has been read: one that cannot be read ends the iteration
      if (result.done) return undefined;
      answer.value = result.value;
      open = true;
      return answer;
    };
    const pull = lanes.pulling(() => {
      let next;
      try {
        next = iterator.next();
      } catch (error) {
        return failed(error);
      }
      return isThenable(next) ? next.then(pulled, failed) : pulled(next);
    });
    pull();
    return () => {
      lanes.stop();
      if (open) closeIterator(iterator, subscriber, "lanesFrom's iterator.return()");
    };
  });
}

/** Options for {@link framesFrom}: the frames' element type and length, and the lanes. */
export interface FramesOptions<D extends DType = DType> extends LanePoolOptions {
  /** The frames' element type. */
  readonly dtype: D;
  /** Elements per frame. */
  readonly length: number;
  /** Frames to produce at most; without it, until `fill` returns `false`. */
  readonly count?: number;
}

/**
 * A source of frames in pinned memory that the producer fills in place: for each frame, `fill`
 * gets a {@link HostArray} from the lanes' pool (`frame.data` is a real TypedArray over
 * pinned memory) and writes it; the frame then travels as the value of its {@link Work}, so that
 * `upload((frame) => frame)` copies it to the device with no host copy at all. The frame goes back
 * to the pool when the value's work is done, and comes out again for a later frame: a frame holds
 * what it held before (it is not zeroed), and no memory is allocated once the pools are warm:
 * read `work.value` in the pipeline or in the subscriber's `next`, not later (copy what you keep).
 * `fill` is called only when a value may start (at most `inFlight` in flight), one at a time.
 *
 * Use it where a camera, a decoder or a file reader can write into memory it is given: it is the
 * fastest road in. For arrays the source makes itself, see {@link lanesFrom} (and
 * `device.registerHost` for arrays it refills).
 *
 * @example
 * framesFrom(device, { dtype: 'u8', length: width * height * 4, lanes: 3 }, async (frame, i) => {
 *   await camera.read(frame.data); // return false when there are no more frames
 * }).pipe(upload((frame) => frame), launch(...), download(..., 'out', { lend: 'next' }))
 *
 * @param target a device or devices (a pool is made for the subscription and closed after it),
 * or a {@link LanePool}.
 * @param options the frames' `dtype` and `length`, at most `count` of them, and the lanes.
 * @param fill writes frame number `index`; returns (or resolves to) `false` when there is no
 * frame to write any more (that frame is not used).
 * @returns an Observable of {@link Work} envelopes whose values are the frames.
 * @throws TypeError/RangeError for bad options, `fill` or `target`, as {@link onStreams} (at
 * once); the errors of `fill`, to the subscriber, as they are.
 * @see upload
 */
export function framesFrom<D extends DType>(
  target: LaneTarget,
  options: FramesOptions<D>,
  fill: (frame: HostArray<D>, index: number) => boolean | void | Promise<boolean | void>,
): Observable<Work<HostArray<D>>> {
  checkOptions('options', options, FRAMES_OPTIONS);
  if (options === undefined) typeError('options', 'an options object with `dtype` and `length`', options);
  const { dtype, length, count = Infinity, ...laneOptions } = options;
  checkDType('dtype', dtype);
  checkHostLength(dtype, length);
  if (count !== Infinity) checkCount('count', count);
  if (typeof fill !== 'function') typeError('fill', 'a function', fill);
  checkTarget(target, laneOptions);
  return new Observable<Work<HostArray<D>>>((subscriber) => {
    const lanes = dispatcher(subscriber, target, laneOptions, () => pull());
    // One answer for every pull: pulls come one at a time, and each answer is read at once.
    const answer = { value: undefined as unknown as HostArray<D>, frame: undefined as unknown as HostArray<D> };
    const pulled = (frame: HostArray<D>, more: boolean | void) => {
      if (more === false) return void lanes.pool.engine.give(frame);
      answer.value = answer.frame = frame;
      return answer;
    };
    const back = (frame: HostArray<D>, error: unknown): never => {
      lanes.pool.engine.give(frame);
      throw error;
    };
    const pull = lanes.pulling((index) => {
      if (index >= count) return undefined;
      const frame = lanes.pool.engine.host(dtype, length);
      try {
        const filled = fill(frame, index);
        // A frame filled synchronously starts at once, in the same turn as the place freed.
        if (!isThenable(filled)) return pulled(frame, filled);
        return Promise.resolve(filled).then((more) => pulled(frame, more), (error) => back(frame, error));
      } catch (error) {
        return back(frame, error);
      }
    });
    pull();
    return () => lanes.stop();
  });
}
