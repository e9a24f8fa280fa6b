// A pool's memory: device and pinned buffers kept for reuse by kind, device, element type and
// length, shared by every lane of the pool. A buffer comes back only once the work that used it
// has finished, so any lane may take it next, and the pool holds what is in flight.
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

/** The free buffers of one pool. */
export class Buffers {
  readonly #free = new Map<Device, Map<number, Memory[]>>();
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

  /** A free buffer of `device` (pinned, or device memory), if there is one; else {@link made} one. */
  take(device: Device, host: boolean, dtype: DType, length: number): Memory | undefined {
    const reused = this.#free.get(device)?.get(bufferKey(host, dtype, length))?.pop();
    if (reused) this.#inUse++;
    return reused;
  }

  /** Counts in a buffer made because none was free, and returns it. */
  made<M extends Memory>(memory: M): M {
    this.#created++;
    this.#inUse++;
    return memory;
  }

  /** Takes back a buffer whose work has finished; with `closed`, frees it instead. */
  give(memory: Memory, closed: boolean): void {
    this.#inUse--;
    if (closed) return memory.closeIdle();
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
  }
}
