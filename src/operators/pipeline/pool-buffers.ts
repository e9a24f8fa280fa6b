// A pool's memory: device and pinned buffers kept for reuse by kind, device, element type and
// length, shared by every lane of the pool. A buffer comes back only once the work that used it
// has finished, so any lane may take it next, and the pool holds what is in flight. A lane takes
// back the buffers it gave where it can: a replayed value then finds an executable of its lane
// that holds its memory already (the buffers of a lane come round again), at any number of lanes.
import { DTYPES, type DType } from '../../core/base/dtype.js';
import type { Device } from '../../core/device/device.js';
import { HostArray, type Memory } from '../../core/memory/memory.js';

const DTYPE_CODES = Object.fromEntries(Object.keys(DTYPES).map((dtype, i) => [dtype, i])) as Record<DType, number>;

/**
 * The key of pooled memory on its device: its kind, element type and length, as one number (a
 * string made for each buffer taken and given back was garbage twice per buffer and value).
 */
function bufferKey(host: boolean, dtype: DType, length: number): number {
  return (length * 16 + DTYPE_CODES[dtype]) * 2 + (host ? 1 : 0);
}

/** Free buffers looked at, the latest first, for one the taking lane gave back. */
const SEARCH = 64;

/** The free buffers of one pool. */
export class Buffers {
  readonly #free = new Map<Device, Map<number, Memory[]>>();
  /** The lane each free buffer was given back by (-1: none); free buffers only. */
  readonly #givenBy = new Map<Memory, number>();
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
    const list = this.#free.get(device)?.get(bufferKey(host, dtype, length));
    if (!list || list.length === 0) return undefined;
    let at = list.length - 1;
    // Free buffers are few in a steady pipeline (most are in flight): a short look.
    for (let i = at; i >= 0 && i >= list.length - SEARCH; i--)
      if (this.#givenBy.get(list[i]!) === lane) {
        at = i;
        break;
      }
    const reused = list[at]!;
    list[at] = list[list.length - 1]!;
    list.pop();
    this.#givenBy.delete(reused); // a buffer handed out is not held here (a lent one may be dropped)
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
    if (closed) {
      this.#givenBy.delete(memory);
      return memory.closeIdle();
    }
    this.#givenBy.set(memory, lane);
    const device = memory.device as Device;
    let lists = this.#free.get(device);
    if (!lists) this.#free.set(device, (lists = new Map()));
    const key = bufferKey(memory instanceof HostArray, memory.dtype, memory.length);
    let list = lists.get(key);
    if (!list) lists.set(key, (list = []));
    list.push(memory);
  }

  /**
   * Frees every free buffer. Their work has finished: pinned blocks go back for reuse at once
   * (see pinned-cache.ts). A broken device's memory goes with its context: its frees fail and
   * are let be.
   */
  close(): void {
    for (const lists of this.#free.values())
      for (const list of lists.values())
        for (const memory of list) {
          try {
            memory.closeIdle();
          } catch {}
        }
    this.#free.clear();
    this.#givenBy.clear();
  }
}
