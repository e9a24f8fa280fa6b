import { Observable, type OperatorFunction } from 'rxjs';
import { Device } from '../core/device.js';
import { LanePool, type LanePoolOptions } from './lane-pool.js';
import { PipelineError, Work } from './work.js';

/**
 * Binds each value to a stream lane, round robin, with at most `inFlight` values whose device
 * work has not finished; values beyond that wait here, in arrival order, until one finishes.
 *
 * Use it first in a GPU pipeline: the operators after it (`upload`, `launch`, `host`,
 * `download`, `completed`) enqueue on the value's lane and re-emit at once.
 *
 * @example
 * frames$.pipe(
 *   onStreams(Device.default(), { lanes: 3, inFlight: 6 }),
 *   upload((frame) => frame.pixels),
 *   launch(invert, (w) => ({ config: { grid: 64, block: 256 }, args: [w.buffers.input!, n] })),
 *   download((w) => w.buffers.input!),
 * ).subscribe((w) => show(w.results.output));
 *
 * @param target a device (a pool is made for the subscription and closed after it) or a
 * {@link LanePool} that outlives it.
 * @param options lanes and the in-flight bound, when `target` is a device.
 * @returns an operator from values to {@link Work} envelopes.
 * @throws RangeError for a bad bound; errors of the source reach the subscriber as they are.
 * @see LanePool
 */
export function onStreams<T>(target: Device | LanePool, options?: LanePoolOptions): OperatorFunction<T, Work<T>> {
  return (source) =>
    new Observable<Work<T>>((subscriber) => {
      const owned = target instanceof Device;
      const pool = owned ? new LanePool(target, options) : target;
      const waiting: T[] = [];
      let index = 0;
      let sourceDone = false;
      let stopped = false;

      const finishIfDone = () => {
        if (sourceDone && waiting.length === 0 && pool.stats.inFlight === 0) subscriber.complete();
      };
      const start = (value: T) => {
        const i = index++;
        const lane = pool.lanes[i % pool.lanes.length]!;
        pool.flight(+1);
        const work = new Work(value, i, lane, () => {
          pool.flight(-1);
          if (stopped) return;
          while (!pool.full && waiting.length > 0) start(waiting.shift()!);
          finishIfDone();
        });
        try {
          subscriber.next(work);
        } catch (error) {
          subscriber.error(new PipelineError('onStreams', i, error));
        }
        // Everything downstream enqueued synchronously is covered by this release.
        work.releaseWhenDone();
      };

      const subscription = source.subscribe({
        next: (value) => (pool.full ? waiting.push(value) : start(value)),
        error: (error) => subscriber.error(error),
        complete: () => {
          sourceDone = true;
          finishIfDone();
        },
      });
      return () => {
        stopped = true;
        waiting.length = 0;
        subscription.unsubscribe();
        // Work already on the GPU runs to completion; the pool is closed behind it.
        if (owned) pool.lanes[0]!.stream.device.serviceStream(pool.lanes.map((l) => l.stream)).notify(() => pool.close());
      };
    });
}
