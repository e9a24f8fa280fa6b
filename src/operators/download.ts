import { Observable, type OperatorFunction } from 'rxjs';
import { DTYPES } from '../core/dtype.js';
import type { Memory } from '../core/memory.js';
import { emitWhenDone, operate } from './operate.js';
import type { Work } from './work.js';

/**
 * Copies a device array of each value back to the host and emits the value, on the main thread,
 * once the copy (and all device work before it) has finished; the data is at
 * `work.results[name]`, a TypedArray of its own.
 *
 * @example
 * download((w) => w.buffers.input!, 'pixels')
 *
 * @param select the memory to read back, from the value.
 * @param name the result's name on the value.
 * @default name 'output'
 * @returns an operator that emits each {@link Work} when its data is on the host.
 * @throws PipelineError (to the subscriber) when `select` throws.
 * @see upload
 */
export function download<T>(select: (work: Work<T>) => Memory, name = 'output'): OperatorFunction<Work<T>, Work<T>> {
  return (source) =>
    new Observable((subscriber) =>
      operate(`download(${name})`, source, subscriber, (work, later) => {
        const memory = select(work);
        const staging = work.staging(memory.dtype, memory.length);
        work.stage(`download ${name}`, () => work.stream.copy(staging, memory));
        emitWhenDone(work, subscriber, later, () => {
          const Array = DTYPES[memory.dtype].Array;
          work.results[name] = new Array(staging.data.slice().buffer, 0, memory.length) as never;
        });
      }),
    );
}
