// A pool's memory: device and pinned buffers kept for reuse by device, kind, element type and
// length, shared by every lane of the pool. A buffer comes back only once the work that used it
// has finished, so any lane may take it next, and the pool holds what is in flight. A lane takes
// back the buffers it gave where it can: a replayed value then finds an executable of its lane
// that holds its memory already (the buffers of a lane come round again), at any number of lanes.
import { DTYPES, type DType } from '../../core/base/dtype.js';
import type { Device } from '../../core/api/device.js';
import { HostArray, type Memory, closeIdle } from '../../core/api/memory.js';

const DTYPE_CODES = Object.fromEntries(Object.keys(DTYPES).map((dtype, i) => [dtype, i])) as Record<DType, number>;
const KINDS = Object.keys(DTYPES).length * 2;

/**
 * Where free buffers of one kind (pinned or device memory) and element type are in a device's
 * lists; their length then keys a map of its own, so no two kinds, types or lengths share a key
 * (the pool's callers take only integer lengths: see LanePool).
 */
function kindOf(host: boolean, dtype: DType): number {
  return DTYPE_CODES[dtype] * 2 + (host ? 1 : 0);
}

/** Free buffers looked at, the latest first, for one the taking lane gave back. */
const SEARCH = 64;

/** Free buffers of one key, each with the lane that gave it back (-1: none), side by side. */
interface FreeList {
  readonly memory: Memory[];
  readonly lanes: number[];
}

/** The free buffers of one pool. */
export class Buffers {
  /** By device, then {@link kindOf} kind and element type, then length. */
  readonly #free = new Map<Device, Map<number, FreeList>[]>();
  #inUse = 0;
  #created = 0;

  /** Pooled buffers handed out and not yet returned. */
  get inUse(): number {
    return this.#inUse;
  }

  /** Pooled buffers ever allocated (steady state: this stops growing). */
  get created(): number {
    return this.#created;
  }

  /**
   * A free buffer of `device` (pinned, or device memory), if there is one, the latest that `lane`
   * gave back first; else {@link made} one.
   */
  take(device: Device, host: boolean, dtype: DType, length: number, lane = -1): Memory | undefined {
    const free = this.#free.get(device)?.[kindOf(host, dtype)]?.get(length);
    if (!free || free.memory.length === 0) return undefined;
    const { memory, lanes } = free;
    const last = memory.length - 1;
    let at = last;
    // Free buffers are few in a steady pipeline (most are in flight): a short look.
    for (let i = last; i >= 0 && i > last - SEARCH; i--)
      if (lanes[i] === lane) {
        at = i;
        break;
      }
    const reused = memory[at]!;
    memory[at] = memory[last]!;
    lanes[at] = lanes[last]!;
    memory.pop();
    lanes.pop();
    this.#inUse++;
    return reused;
  }

  /** Counts in a buffer made because none was free, and returns it. */
  made<M extends Memory>(memory: M): M {
    this.#created++;
    this.#inUse++;
    return memory;
  }

  /** Takes back a buffer whose work has finished, from `lane`; with `closed`, frees it instead. */
  give(memory: Memory, closed: boolean, lane = -1): void {
    this.#inUse--;
    if (closed) return closeIdle(memory);
    const device = memory.device as Device;
    let lists = this.#free.get(device);
    if (!lists) this.#free.set(device, (lists = Array.from({ length: KINDS }, () => new Map<number, FreeList>())));
    const byLength = lists[kindOf(memory instanceof HostArray, memory.dtype)]!;
    let free = byLength.get(memory.length);
    if (!free) byLength.set(memory.length, (free = { memory: [], lanes: [] }));
    free.memory.push(memory);
    free.lanes.push(lane);
  }

  /**
   * Frees every free buffer. Their work has finished: pinned blocks go back for reuse at once
   * (see pinned-cache.ts). A broken device's memory goes with its context: its frees fail and
   * are let be.
   */
  close(): void {
    for (const lists of this.#free.values())
      for (const byLength of lists)
        for (const list of byLength.values())
          for (const memory of list.memory) {
            try {
              closeIdle(memory);
            } catch {}
          }
    this.#free.clear();
  }
}
