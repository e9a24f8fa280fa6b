import type { OperatorFunction } from 'rxjs';
import type { Stream } from '../core/api/stream.js';
import { typeError } from '../core/base/errors.js';
import { stepOperator } from './pipeline/step-run.js';
import type { Work } from './pipeline/work.js';
import type { NamedIn, With } from './pipeline/slots.js';
import { stageWork } from './pipeline/work.js';

/**
 * Enqueues any device work for each value on its stream (built-in kernels, copies, fills,
 * launches with several kernels) and re-emits the value at once.
 *
 * @example
 * enqueue((w, stream) => builtins.axpy(stream, 0.5, w.buffers.x, w.buffers.y))
 * // an array made here by name, returned, is `w.buffers.sum` for the operators after this one:
 * enqueue((w, stream) => {
 *   const sum = w.device('f32', n, 'sum');
 *   builtins.add(stream, sum, w.buffers.a, w.buffers.b);
 *   return sum;
 * })
 *
 * @param fn enqueues on `stream`, the value's lane; it must not wait for the work. The arrays it
 * makes with `work.device(dtype, length, name)` and returns (one, or an array of them) are typed
 * as `work.buffers[name]` after this operator.
 * @param name how errors name this step.
 * @default name 'enqueue'
 * @returns an operator that re-emits each {@link Work} after `fn` has enqueued its work.
 * @throws TypeError (at once) when `fn` is not a function or `name` not a string; PipelineError
 * (to the subscriber) when `fn` throws.
 * @see launch
 */
export function enqueue<T, B, R, X = void>(
  fn: (work: Work<T, B, R>, stream: Stream) => X,
  name = 'enqueue',
): OperatorFunction<Work<T, B, R>, Work<T, With<B, NamedIn<X>>, R>> {
  if (typeof fn !== 'function') typeError('fn', 'a function that enqueues a value\'s work', fn);
  if (typeof name !== 'string') typeError('name', 'a string', name);
  return stepOperator(name, (work: Work<T, B, R>) => {
    stageWork(work, name, () => fn(work, work.stream));
  });
}
