// The error of a graph's bounded while loop that the device stopped at its bound.
import { RxcudaError } from './errors.js';

/**
 * A graph's `while` loop ran its `maxIterations` and its condition still asked for more: the device
 * stopped it, and the graph's later nodes ran. Reported after the launch through the stream's
 * `error` event (a pipeline's subscriber: a `PipelineError`'s `cause`); the stream stays usable.
 * @example
 * stream.on('error', (e) => e instanceof LoopLimitError && console.warn(`${e.loop}: ${e.iterations}`));
 */
export class LoopLimitError extends RxcudaError {
  /** The class's name, `LoopLimitError`. */
  override readonly name = 'LoopLimitError';
  declare readonly code: undefined;
  /** The loop's name, as given to `whileLoop` or `addWhile`, else `while loop <n>` (its graph's nth, from 0). */
  readonly loop: string;
  /** The iterations it ran: its `maxIterations`. */
  readonly iterations: number;

  /** @param loop the loop's name. @param iterations the iterations it ran, its bound. */
  constructor(loop: string, iterations: number) {
    super(`The ${loop} ran its maxIterations (${iterations}) and its condition still asked for more: it was stopped there, and the graph went on`);
    this.loop = loop;
    this.iterations = iterations;
  }
}
