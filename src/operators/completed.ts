import { Observable, type OperatorFunction } from 'rxjs';
import { WhenDone, operate } from './pipeline/operate.js';
import type { Work } from './pipeline/work.js';

/**
 * Emits each value on the main thread once the device work enqueued for it so far has finished.
 *
 * Use it where the next step needs the GPU's results in place (not copied back), or to pace a
 * pipeline by completion. Values are emitted as their work completes: values of different lanes
 * may overtake one another (sort by `work.index` where source order matters).
 *
 * @example
 * frames$.pipe(onStreams(device), upload(f => f.pixels), launch(...), completed())
 *
 * @returns an operator that emits each {@link Work} after its device work is done.
 * @throws the CudaError that stopped the stream, to the subscriber.
 * @see download
 */
export function completed<T, B, R>(): OperatorFunction<Work<T, B, R>, Work<T, B, R>> {
  return (source) =>
    new Observable((subscriber) => {
      const done = new WhenDone<Work<T, B, R>>('completed', subscriber);
      return operate('completed', source, subscriber, (work, expectEmission) => done.emit(work, expectEmission));
    });
}
