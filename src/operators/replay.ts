import { Observable, type OperatorFunction } from 'rxjs';
import { typeError } from '../core/base/errors.js';
import { Feed } from './pipeline/feed.js';
import { Replayer } from './pipeline/replayer.js';
import { PipelineError, type Work, hostSpan } from './pipeline/work.js';
import { unsubscribeFenced } from './pipeline/teardown.js';

/** The warning code of a value whose work {@link replay} enqueued as given. */
export const REPLAY_EAGER_WARNING = 'RXCUDA_REPLAY_EAGER';

/**
 * Launches each value's device work as a CUDA graph instead of one launch at a time: the first
 * value's work, as `operator` enqueues it (from `upload` to `download`), is captured into a
 * graph; each later value replays that graph on its lane with its own addresses and scalars.
 * Use it when a pipeline enqueues many small kernels per value, whose launches cost more host
 * time than the device spends on them.
 *
 * Work a graph cannot hold (a host step, a completion wait, an event) ends one graph and starts
 * the next, in order, so `operator` may use every pipeline operator. Buffers taken from the pool
 * between device work (`c: w.device(…)` after a `gemm`) end nothing: the first values, which
 * allocate them, record the same graph as later ones, which reuse them. A value whose work differs
 * in shape from the first value's (another kernel, another copy size, more or fewer operations)
 * is enqueued as given, with the same results; the first such value is reported once as a
 * process warning with code `RXCUDA_REPLAY_EAGER` that names the difference, and each one as a
 * span on the lanes' timeline. On the host device, replays are recorded command lists.
 *
 * @example
 * frames.pipe(
 *   onStreams(device, { lanes: 4 }),
 *   replay(pipe(
 *     upload((f) => f.pixels),
 *     launch(blur, config, [(w) => w.buffers.input, (w) => w.device('f32', n, 'out'), n]),
 *     download((w) => w.buffers.out, 'out'),
 *   )),
 * )
 * @param operator the operators whose device work is replayed, composed with RxJS's `pipe`.
 * @returns an operator that emits what `operator` emits.
 * @throws PipelineError (to the subscriber) when recording or launching a value's work fails;
 * TypeError (at once) for a non-function `operator`.
 * @see Stream.capture
 */
export function replay<T, B, R, O>(operator: OperatorFunction<Work<T, B, R>, O>): OperatorFunction<Work<T, B, R>, O> {
  if (typeof operator !== 'function') typeError('operator', 'an operator function, e.g. pipe(upload(…), launch(…), download(…))', operator);
  return (source) =>
    new Observable<O>((subscriber) => {
      let warned = false;
      let current: Work<T, B, R> | undefined;
      let noted: Work<T, B, R> | undefined; // one span per value, for its first difference
      const replayer = new Replayer((difference) => {
        if (current && noted !== current) hostSpan(current, `replay: enqueued as given (${difference})`, performance.now());
        noted = current;
        if (warned) return;
        warned = true;
        process.emitWarning(`replay enqueued a value's work as given: its ${difference}`, { type: 'RxcudaWarning', code: REPLAY_EAGER_WARNING });
      });
      const feed = new Feed<Work<T, B, R>>();
      const give = (work: Work<T, B, R>) => feed.next(work);
      const inner = operator(feed.values).subscribe(subscriber);
      const outer = source.subscribe({
        next: (work) => {
          current = work;
          try {
            replayer.around(work.stream, give, work);
          } catch (error) {
            subscriber.error(new PipelineError('replay', work.index, error));
          } finally {
            current = undefined;
          }
        },
        error: (error) => feed.error(error),
        complete: () => feed.complete(),
      });
      return () => {
        unsubscribeFenced(outer, subscriber, "replay's unsubscribe from its source");
        unsubscribeFenced(inner, subscriber, "replay's unsubscribe from its operator");
        replayer.close();
      };
    });
}
