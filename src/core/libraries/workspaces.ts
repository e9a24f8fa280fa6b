// Workspaces of library calls on CUDA (cuBLAS's, cuFFT plans' work areas): one per stream, from
// the stream-ordered pool (cuMemAllocAsync on that stream), grown when a call needs more, and
// shared by the stream's calls, which its order keeps apart. Nothing is allocated per call once a
// stream's workspace is large enough.
import { memoryClasses, type DeviceMemoryView } from '../memory/memory-view.js';
import type { DeviceEngine } from '../device/device-engine.js';
import type { StreamEngine } from '../queue/stream-engine.js';

/** @internal The workspaces of one device's streams, by their lanes. */
export class Workspaces {
  readonly #arrays = new Map<StreamEngine, DeviceMemoryView<'u8'>>();
  readonly #device: DeviceEngine;

  constructor(device: DeviceEngine) {
    this.#device = device;
  }

  /** Streams that have a workspace (for tests). */
  get size(): number {
    return this.#arrays.size;
  }

  /** The workspace of the calls on `lane` now, if it has one (rxcuda/internal's, for the studies). */
  of(lane: StreamEngine): DeviceMemoryView<'u8'> | undefined {
    return this.#arrays.get(lane);
  }

  /**
   * A workspace of at least `bytes` for work enqueued on `lane` from now on. A smaller one is
   * freed behind the work that used it (stream-ordered) and a larger one allocated.
   */
  on(lane: StreamEngine, bytes: number): DeviceMemoryView<'u8'> {
    let array = this.#arrays.get(lane);
    if (array && array.byteLength >= bytes) return array;
    if (!array) this.#sweep();
    array?.close();
    array = memoryClasses.allocateDevice(lane, this.#device, 'u8', bytes);
    this.#arrays.set(lane, array);
    return array;
  }

  /** Frees the workspaces of streams closed since (behind their last work), when a new stream comes. */
  #sweep(): void {
    for (const [lane, array] of this.#arrays)
      if (lane.closed) {
        array.close();
        this.#arrays.delete(lane);
      }
  }
}

const perDevice = new WeakMap<DeviceEngine, Workspaces>();

/** @internal The workspaces of `device`'s streams, shared by its libraries. */
export function workspacesOf(device: DeviceEngine): Workspaces {
  let workspaces = perDevice.get(device);
  if (!workspaces) perDevice.set(device, (workspaces = new Workspaces(device)));
  return workspaces;
}
