import { Observable, type OperatorFunction } from 'rxjs';
import { typeError, type HostStepTimeoutError } from '../core/base/errors.js';
import { checkOptions } from '../core/base/options.js';
import { checkTimeout } from '../core/queue/user-data.js';
import { operate } from './pipeline/operate.js';
import { PipelineError, type Work } from './pipeline/work.js';
import { timeHostSpan } from './timeline/timeline.js';

/** Options for {@link host}. */
export interface HostOptions {
  /**
   * Milliseconds a step may take once started; past it the lane goes on without it and the
   * subscriber gets a PipelineError whose `cause` is a {@link HostStepTimeoutError}.
   * @default undefined (no timeout)
   */
  readonly timeout?: number;
}

/**
 * Runs `fn` on the main thread in the value's stream order: after the device work enqueued for
 * the value so far, and before what is enqueued after it, which waits for `fn` (also while an
 * async `fn` is pending). Re-emits the value at once.
 *
 * @example
 * host((w) => { histogram.add(w.results.stats); })
 * host((w) => labels.lookup(w.index), { timeout: 5_000 }) // gives a lookup up after 5 s
 *
 * @param fn the step; it must not wait for device work of the value's own stream.
 * @param options `timeout`: milliseconds each step may take once started.
 * @returns an operator that re-emits each {@link Work} after enqueuing the step.
 * @throws PipelineError (to the subscriber) when `fn` throws, rejects or times out; the stream
 * goes on. TypeError/RangeError (at once) for a non-function `fn` or a bad `timeout`.
 * @see Stream.hostLaunch
 */
export function host<T, B, R>(fn: (work: Work<T, B, R>) => unknown, options: HostOptions = {}): OperatorFunction<Work<T, B, R>, Work<T, B, R>> {
  if (typeof fn !== 'function') typeError('fn', 'a function', fn);
  checkOptions('options', options, ['timeout']);
  const timeout = checkTimeout(options.timeout);
  const stepOptions = timeout === undefined ? {} : { timeout };
  return (source) =>
    new Observable((subscriber) =>
      operate('host', source, subscriber, (work) => {
        const requested = work.lane.pool.timeline ? performance.now() : 0; // the step's place in the pipeline's order
        work.stream.hostLaunch(async () => {
          const start = performance.now();
          try {
            await fn(work);
          } catch (error) {
            subscriber.error(new PipelineError('host', work.index, error));
          }
          const timeline = work.lane.pool.timeline;
          if (timeline) timeHostSpan(timeline, work.lane.index, work.index, 'host', start, 0, requested);
        }, stepOptions);
        subscriber.next(work);
      }),
    );
}
