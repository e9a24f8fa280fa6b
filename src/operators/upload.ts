import { Observable, type OperatorFunction } from 'rxjs';
import type { DType } from '../core/dtype.js';
import type { DeviceArray } from '../core/memory.js';
import { attached, operate } from './operate.js';
import type { Work } from './work.js';
import type { DTypeOfData, HostData, With } from './slots.js';

const DTYPE_OF = new Map<Function, DType>([
  [Int8Array, 'i8'], [Uint8Array, 'u8'], [Int16Array, 'i16'], [Uint16Array, 'u16'], [Int32Array, 'i32'],
  [Uint32Array, 'u32'], [BigInt64Array, 'i64'], [BigUint64Array, 'u64'], [Float32Array, 'f32'], [Float64Array, 'f64'],
]);

/**
 * Copies host data of each value to the device, through a pooled pinned staging buffer into a
 * pooled device array, attached to the value as `work.buffers[name]`.
 *
 * Use it after {@link onStreams} to bring a value's input to the GPU; it enqueues and re-emits
 * at once, and allocates nothing per value once the lane's pools are warm.
 *
 * @example
 * frames$.pipe(onStreams(device), upload((frame) => frame.pixels, 'pixels'))
 *
 * @param select the TypedArray to upload, from the value.
 * @param name the buffer's name on the value.
 * @default name 'input'
 * @returns an operator that re-emits each {@link Work} with the device array attached, typed
 * (a Uint8Array becomes `work.buffers[name]: DeviceArray<'u8'>`).
 * @throws PipelineError (to the subscriber) when `select` throws or returns no TypedArray.
 * @see download
 */
export function upload<T, B, R, A extends HostData, N extends string = 'input'>(
  select: (value: T) => A,
  name: N = 'input' as N,
): OperatorFunction<Work<T, B, R>, Work<T, With<B, { readonly [K in N]: DeviceArray<DTypeOfData<A>> }>, R>> {
  return (source) =>
    new Observable((subscriber) =>
      operate(`upload(${name})`, source, subscriber, (work) => {
        const data = select(work.value);
        const dtype = ArrayBuffer.isView(data) ? DTYPE_OF.get(data.constructor) : undefined;
        if (!dtype) throw new TypeError(`Expected \`select\` to return a TypedArray, got ${String(data)}`);
        const staging = work.staging(dtype, data.length);
        staging.data.set(data as never);
        const target = work.device(dtype, data.length, name);
        work.stage(`upload ${name}`, () => work.stream.copy(target, staging));
        subscriber.next(attached(work));
      }),
    );
}
