import type { OperatorFunction } from 'rxjs';
import { byteLengthOf, lengthOf } from '../core/base/buffers.js';
import { dtypeOfArray, type DType } from '../core/base/dtype.js';
import { typeError } from '../core/base/errors.js';
import { HostArray, type DeviceArray } from '../core/api/memory.js';
import { stageIn } from '../core/device/stream-commands.js';
import { markUntransferable } from '../core/memory/user-arrays.js';
import { MAIN_THREAD_COPY_BYTES } from '../core/memory/host-copy.js';
import { stepOperator } from './pipeline/step-run.js';
import type { AnyWork, Work } from './pipeline/work.js';
import { checkSlotName, type DTypeOfData, type HostData, type With } from './pipeline/slots.js';
import { stagingArray, isTimed, stageWork, hostSpan } from './pipeline/work.js';

/** What `upload` takes: a TypedArray, or pinned memory (a frame, a registered array). */
export type UploadSource = HostData | HostArray;

/** The element type of the device array that `upload` makes for `A`. */
export type DTypeOfSource<A extends UploadSource> = A extends HostArray<infer D> ? D : A extends HostData ? DTypeOfData<A> : never;

/**
 * Copies host data of each value into a pooled device array, attached to the value as
 * `work.buffers[name]`. Which road the bytes take depends on the data:
 * - a {@link HostArray} (a frame from {@link framesFrom}, `device.allocHost`,
 *   `device.registerHost`) is pinned already: the device copies from it, the host copies nothing;
 * - a plain TypedArray is copied into pooled pinned staging first, by native threads in parallel
 *   chunks off the main thread (on the main thread when it is small), and the device copy waits
 *   in the lane's queue until it is there.
 *
 * Use it after {@link onStreams} to bring a value's input to the GPU; it enqueues and re-emits
 * at once, and allocates nothing per value once the lanes' pool is warm. The data must not
 * change until the value's work is done. An array whose buffer is detached or resizable is
 * refused; one of more than {@link MAIN_THREAD_COPY_BYTES}, which native threads read after the
 * operator has returned, is kept in place for them: rxcuda marks its buffer untransferable
 * (`postMessage` and `structuredClone` copy it from then on instead of moving it; docs/rules.md, "Memory
 * the user can move away").
 *
 * @example
 * frames$.pipe(onStreams(device), upload((frame) => frame.pixels, 'pixels'))
 *
 * @param select the data to upload, from the value.
 * @param name the buffer's name on the value.
 * @default name 'input'
 * @returns an operator that re-emits each {@link Work} with the device array attached, typed
 * (a Uint8Array becomes `work.buffers[name]: DeviceArray<'u8'>`).
 * @throws TypeError when `select` is not a function or `name` not a non-empty string (at once); PipelineError (to the subscriber)
 * when `select` throws or returns neither a HostArray nor a TypedArray (a Uint8ClampedArray has
 * no element type of its own: view its buffer as a Uint8Array), or an array whose buffer is
 * detached or resizable.
 * @see download
 */
export function upload<T, B, R, A extends UploadSource, N extends string = 'input'>(
  select: (value: T) => A,
  name: N = 'input' as N,
): OperatorFunction<Work<T, B, R>, Work<T, With<B, { readonly [K in N]: DeviceArray<DTypeOfSource<A>> }>, R>> {
  if (typeof select !== 'function') typeError('select', 'a function from a value to the data to upload', select);
  checkSlotName('name', name);
  // The step's path for an untimed value captures nothing, so that it allocates no context: a
  // timeline's stages take the functions below.
  return stepOperator(`upload(${name})`, (work: Work<T, B, R>) => {
    const data: UploadSource = select(work.value);
    if (data instanceof HostArray) {
      const target = work.device(data.dtype, data.length, name);
      if (!isTimed(work)) work.stream.copy(target, data);
      else copyStaged(work, `upload ${name} [${data.registered ? 'registered' : 'pinned'}]`, target, data);
      return;
    }
    const dtype: DType | undefined = dtypeOfArray(data);
    if (!dtype) typeError('select(value)', 'a HostArray or a TypedArray other than a Uint8ClampedArray', data);
    // Measured through its internal slots: a subclass's length and byteLength getters may say anything.
    const length = lengthOf(data);
    markUntransferable('select(value)', data, byteLengthOf(data) > MAIN_THREAD_COPY_BYTES); // the copy threads read a large one after this returns
    const staging = stagingArray(work, dtype, length);
    if (isTimed(work)) stageTimed(work, `stage ${name} [workers]`, staging, data);
    else stageIn(work.stream, staging, data);
    const target = work.device(dtype, length, name);
    if (!isTimed(work)) work.stream.copy(target, staging);
    else copyStaged(work, `upload ${name} [staged]`, target, staging);
  });
}

/** The device copy of a timed value, as the stage `stage`. */
function copyStaged(work: AnyWork, stage: string, target: DeviceArray, source: HostArray): void {
  stageWork(work, stage, () => work.stream.copy(target, source), source.byteLength);
}

/** The host copy into staging of a timed value, with a host span `span` when native threads make it. */
function stageTimed(work: AnyWork, span: string, staging: HostArray, data: ArrayBufferView): void {
  const start = performance.now();
  stageIn(work.stream, staging, data, () => hostSpan(work, span, start, byteLengthOf(data)));
}
