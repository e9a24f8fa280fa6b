import { Observable, type OperatorFunction } from 'rxjs';
import { operate } from './operate.js';
import { PipelineError, type Work } from './work.js';

/**
 * Runs `fn` on the main thread in the value's stream order: after the device work enqueued for
 * the value so far, and before what is enqueued after it, which waits for `fn` (also while an
 * async `fn` is pending). Re-emits the value at once.
 *
 * @example
 * host((w) => { histogram.add(w.results.stats); })
 *
 * @param fn the step; it must not wait for device work of the value's own stream.
 * @returns an operator that re-emits each {@link Work} after enqueuing the step.
 * @throws PipelineError (to the subscriber) when `fn` throws or rejects; the stream goes on.
 * @see Stream.hostLaunch
 */
export function host<T, B, R>(fn: (work: Work<T, B, R>) => unknown): OperatorFunction<Work<T, B, R>, Work<T, B, R>> {
  return (source) =>
    new Observable((subscriber) =>
      operate('host', source, subscriber, (work) => {
        work.stream.hostLaunch(async () => {
          const start = performance.now();
          try {
            await fn(work);
          } catch (error) {
            subscriber.error(new PipelineError('host', work.index, error));
          }
          work.lane.pool.timeline?.host(work.lane.index, work.index, 'host', start);
        });
        subscriber.next(work);
      }),
    );
}
