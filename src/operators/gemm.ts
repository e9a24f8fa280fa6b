import type { OperatorFunction } from 'rxjs';
import { typeError } from '../core/base/errors.js';
import type { DeviceArray } from '../core/api/memory.js';
import { Blas } from '../core/api/blas.js';
import type { GemmDType, GemmOptions, GemmOutput } from '../core/libraries/gemm-args.js';
import { stepOperator } from './pipeline/step-run.js';
import type { Work } from './pipeline/work.js';
import type { NamedIn, With } from './pipeline/slots.js';
import { stageWork } from './pipeline/work.js';

/** What {@link gemm}'s `configure` gives for a value: the three matrices and the product's shape. */
export interface GemmCall<D extends GemmDType, C extends DeviceArray<GemmOutput<D>>> extends GemmOptions {
  /** The left operand A. */
  readonly a: DeviceArray<D>;
  /** The right operand B, of A's element type. */
  readonly b: DeviceArray<NoInfer<D>>;
  /** The result C (of A's type, or f32 for 16-bit operands); one made by name becomes a slot. */
  readonly c: C;
}

/**
 * Enqueues a matrix product C = alpha·op(A)·op(B) + beta·C for each value on its lane (cuBLAS on
 * a GPU, the CPU reference on the host device) and re-emits the value at once. Use it for a
 * layer's weights applied to a batch of inputs, with kernels and host steps around it.
 *
 * @example
 * gemm((w) => ({ a: w.buffers.x, b: weights, c: w.device('f32', rows * outputs, 'hidden'), m: rows, n: outputs, k: inputs }))
 * // the result made by name is `w.buffers.hidden` (a DeviceArray<'f32'>) for the operators after this one
 *
 * @param configure the matrices and the shape for a value (see {@link Blas.gemm} and
 * {@link GemmOptions}); a `c` made with `work.device(dtype, length, name)` is typed as
 * `work.buffers[name]` after this operator.
 * @returns an operator that re-emits each {@link Work} after enqueuing its product.
 * @throws PipelineError (to the subscriber) with `gemm` and the value's index when the arguments
 * are refused or cuBLAS refuses the call (a LibraryError as its cause); nothing is enqueued for
 * that value. TypeError (at once) for a non-function `configure`.
 * @see Blas.gemm
 */
export function gemm<T, B, R, D extends GemmDType, const C extends DeviceArray<GemmOutput<D>>>(
  configure: (work: Work<T, B, R>) => GemmCall<D, C>,
): OperatorFunction<Work<T, B, R>, Work<T, With<B, NamedIn<C>>, R>> {
  if (typeof configure !== 'function') typeError('configure', 'a function', configure);
  return stepOperator('gemm', (work: Work<T, B, R>) => {
    const { a, b, c, ...options } = configure(work);
    const stream = work.stream;
    stageWork(work, 'gemm', () => Blas.for(stream.device).gemm(stream, a, b, c as never, options));
  });
}
