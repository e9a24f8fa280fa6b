// Workspaces of library calls on CUDA (cuBLAS's, cuFFT plans' work areas): one per stream, from
// the stream-ordered pool (cuMemAllocAsync on that stream), grown when a call needs more, and
// shared by the stream's calls, which its order keeps apart. Nothing is allocated per call once a
// stream's workspace is large enough.
import { DeviceArray, allocateDeviceArray } from '../memory/memory.js';
import type { Device } from '../device/device.js';
import type { Stream } from '../device/stream.js';

/** @internal The workspaces of one device's streams. */
export class Workspaces {
  readonly #arrays = new Map<Stream, DeviceArray<'u8'>>();

  /** Streams that have a workspace (for tests). */
  get size(): number {
    return this.#arrays.size;
  }

  /** The workspace of `stream`'s calls now, if it has one (rxcuda/internal's, for the studies). */
  of(stream: Stream): DeviceArray<'u8'> | undefined {
    return this.#arrays.get(stream);
  }

  /**
   * A workspace of at least `bytes` for work enqueued on `stream` from now on. A smaller one is
   * freed behind the work that used it (stream-ordered) and a larger one allocated.
   */
  on(stream: Stream, bytes: number): DeviceArray<'u8'> {
    let array = this.#arrays.get(stream);
    if (array && array.byteLength >= bytes) return array;
    if (!array) this.#sweep();
    array?.close();
    array = allocateDeviceArray(stream.engine, stream.device.engine, 'u8', bytes);
    this.#arrays.set(stream, array);
    return array;
  }

  /** Frees the workspaces of streams closed since (behind their last work), when a new stream comes. */
  #sweep(): void {
    for (const [stream, array] of this.#arrays)
      if (stream.closed) {
        array.close();
        this.#arrays.delete(stream);
      }
  }
}

const perDevice = new WeakMap<Device, Workspaces>();

/** @internal The workspaces of `device`'s streams, shared by its libraries. */
export function workspacesOf(device: Device): Workspaces {
  let workspaces = perDevice.get(device);
  if (!workspaces) perDevice.set(device, (workspaces = new Workspaces()));
  return workspaces;
}
