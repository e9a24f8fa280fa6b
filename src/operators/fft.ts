import type { OperatorFunction } from 'rxjs';
import { typeError } from '../core/base/errors.js';
import type { DeviceArray } from '../core/api/memory.js';
import { Fft } from '../core/api/fft.js';
import type { C2cOptions, FftDType, FftKind } from '../core/libraries/fft-args.js';
import { stepOperator } from './pipeline/step-run.js';
import type { Work } from './pipeline/work.js';
import type { NamedIn, With } from './pipeline/slots.js';
import { stageWork } from './pipeline/work.js';

/** What {@link fft}'s `configure` gives for a value: the transform, its arrays and its sizes. */
export interface FftCall<D extends FftDType, O extends DeviceArray<D>> extends C2cOptions {
  /** `c2c`, `r2c` (real to complex, forward) or `c2r` (complex to real, inverse). */
  readonly kind: FftKind;
  /** The data transformed. */
  readonly input: DeviceArray<D>;
  /** Where the result goes, of the input's type; one made by name becomes a slot. */
  readonly output: O;
}

/**
 * Enqueues a Fourier transform for each value on its lane (cuFFT on a GPU, the CPU reference on
 * the host device) and re-emits the value at once. Use it for blocks of audio, radio or image
 * data, with kernels and host steps around it.
 *
 * @example
 * fft((w) => ({ kind: 'r2c', input: w.buffers.samples, output: w.device('f32', blocks * 2049 * 2, 'spectra'), shape: 4096, batch: blocks }))
 * // the result made by name is `w.buffers.spectra` for the operators after this one
 *
 * @param configure the transform for a value (see {@link Fft.c2c}, {@link Fft.r2c} and
 * {@link Fft.c2r}); an `output` made with `work.device(dtype, length, name)` is typed as
 * `work.buffers[name]` after this operator.
 * @returns an operator that re-emits each {@link Work} after enqueuing its transform.
 * @throws PipelineError (to the subscriber) with `fft` and the value's index when the arguments
 * are refused or cuFFT refuses the plan or the call (a LibraryError as its cause); nothing is
 * enqueued for that value. TypeError (at once) for a non-function `configure`.
 * @see Fft
 */
export function fft<T, B, R, D extends FftDType, const O extends DeviceArray<D>>(
  configure: (work: Work<T, B, R>) => FftCall<D, O>,
): OperatorFunction<Work<T, B, R>, Work<T, With<B, NamedIn<O>>, R>> {
  if (typeof configure !== 'function') typeError('configure', 'a function', configure);
  return stepOperator('fft', (work: Work<T, B, R>) => {
    const { kind, input, output, ...options } = configure(work);
    const stream = work.stream;
    if (kind !== 'c2c' && kind !== 'r2c' && kind !== 'c2r') typeError('kind', "'c2c', 'r2c' or 'c2r'", kind);
    stageWork(work, `fft ${kind}`, () => Fft.for(stream.device)[kind](stream, input, output as never, options));
  });
}
