import { Observable, type OperatorFunction } from 'rxjs';
import { DTYPES, type DType, type TypedArrayOf } from '../core/dtype.js';
import type { Memory } from '../core/memory.js';
import { emitWhenDone, operate } from './operate.js';
import type { Work } from './work.js';
import type { AnyWork, With } from './slots.js';

/** Options for {@link download} of memory of element type `D`, from values `W`. */
export interface DownloadOptions<W extends AnyWork = AnyWork, D extends DType = DType> {
  /**
   * Where the data goes: a TypedArray of the memory's element type and at least its length,
   * written when the copy has finished, just before the value is emitted. Without it each value
   * gets a new TypedArray. Reusing arrays saves an allocation per value; the caller makes sure
   * the array is not still read for an earlier value.
   */
  readonly into?: (work: W) => TypedArrayOf[D];
}

/**
 * Copies a device array of each value back to the host and emits the value, on the main thread,
 * once the copy (and all device work before it) has finished; the data is at
 * `work.results[name]`: a TypedArray of its own, or the one `options.into` gave, typed by the
 * memory's element type (`DeviceArray<'u8'>` gives a `Uint8Array`).
 *
 * Values are emitted as their work completes: values of different lanes may overtake one
 * another (sort by `work.index` where source order matters).
 *
 * @example
 * download((w) => w.buffers.input, 'pixels')
 *
 * @param select the memory to read back, from the value.
 * @param name the result's name on the value.
 * @param options see {@link DownloadOptions}.
 * @default name 'output'
 * @returns an operator that emits each {@link Work} when its data is on the host.
 * @throws PipelineError (to the subscriber) when `select` or `into` throws, or `into` returns an
 * array of another element type or too short.
 * @see upload
 */
export function download<T, B, R, D extends DType, N extends string = 'output'>(
  select: (work: Work<T, B, R>) => Memory<D>,
  name: N = 'output' as N,
  options: DownloadOptions<Work<T, B, R>, D> = {},
): OperatorFunction<Work<T, B, R>, Work<T, B, With<R, { readonly [K in N]: TypedArrayOf[D] }>>> {
  return (source) =>
    new Observable((subscriber) =>
      operate(`download(${name})`, source, subscriber, (work, later) => {
        const memory = select(work);
        const Array = DTYPES[memory.dtype].Array;
        const target = options.into?.(work);
        if (target !== undefined && !(target instanceof Array && target.length >= memory.length))
          throw new TypeError(`Expected \`into\` to return a ${Array.name} of at least ${memory.length} elements, got ${String(target)}`);
        const staging = work.staging(memory.dtype, memory.length);
        work.stage(`download ${name}`, () => work.stream.copy(staging, memory));
        emitWhenDone(work, subscriber, later, () => {
          const data = staging.data.subarray(0, memory.length);
          const results = work.results as Record<string, TypedArrayOf[DType]>;
          if (target === undefined) results[name] = new Array(data.slice().buffer, 0, memory.length);
          else {
            (target as Uint8Array).set(data as Uint8Array); // same element type, checked above
            results[name] = target;
          }
        });
      }),
    );
}
