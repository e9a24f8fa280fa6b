import { Observable, type OperatorFunction } from 'rxjs';
import type { Stream } from '../core/stream.js';
import { operate } from './operate.js';
import type { Work } from './work.js';

/**
 * Enqueues any device work for each value on its stream (built-in kernels, copies, fills,
 * launches with several kernels) and re-emits the value at once.
 *
 * @example
 * enqueue((w, stream) => builtins.axpy(stream, 0.5, w.buffers.x!, w.buffers.y!))
 *
 * @param fn enqueues on `stream`, the value's lane; it must not wait for the work.
 * @param name how errors name this step.
 * @default name 'enqueue'
 * @returns an operator that re-emits each {@link Work} after `fn` has enqueued its work.
 * @throws PipelineError (to the subscriber) when `fn` throws.
 * @see launch
 */
export function enqueue<T>(fn: (work: Work<T>, stream: Stream) => void, name = 'enqueue'): OperatorFunction<Work<T>, Work<T>> {
  return (source) =>
    new Observable((subscriber) =>
      operate(name, source, subscriber, (work) => {
        work.stage(name, () => fn(work, work.stream));
        subscriber.next(work);
      }),
    );
}
