import { Observable, type OperatorFunction } from 'rxjs';
import type { Stream } from '../core/stream.js';
import { attached, operate } from './operate.js';
import type { Work } from './work.js';
import type { NamedIn, With } from './slots.js';

/**
 * Forks each value's work onto `count` side streams and joins it back: every branch starts after
 * the device work enqueued for the value so far (an event on the value's stream), and work
 * enqueued after this operator waits for every branch (an event on each). Re-emits at once.
 *
 * Use it to run independent kernels of one value concurrently.
 *
 * @example
 * fanOut(2, (w, stream, i) => stream.launch(i === 0 ? blurX : blurY, config, [w.buffers.input, n]))
 *
 * @param count how many branches.
 * @param branch enqueues branch `i`'s work on `stream`. The arrays it makes with
 * `work.device(dtype, length, name)` and returns (one, or an array of them) are typed as
 * `work.buffers[name]` after this operator: every name it can return, as every branch runs.
 * @returns an operator that re-emits each {@link Work} with its branches joined.
 * @throws PipelineError (to the subscriber) when a branch throws; the branches already enqueued
 * are joined all the same.
 */
export function fanOut<T, B, R, X = void>(
  count: number,
  branch: (work: Work<T, B, R>, stream: Stream, index: number) => X,
): OperatorFunction<Work<T, B, R>, Work<T, With<B, NamedIn<X>>, R>> {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`Expected \`count\` to be a positive integer, got ${count}`);
  return (source) =>
    new Observable((subscriber) =>
      operate(`fanOut(${count})`, source, subscriber, (work) => {
        const { fork, sides } = work.lane.sides(count);
        work.stream.record(fork);
        try {
          sides.forEach((side, i) => {
            side.stream.wait(fork);
            branch(work, side.stream, i);
          });
        } finally {
          for (const side of sides) work.stream.wait(side.stream.record(side.joined));
        }
        subscriber.next(attached(work));
      }),
    );
}
