// A pool's memory: device and pinned buffers kept for reuse by kind, device, element type and
// length, shared by every lane of the pool. A buffer comes back only once the work that used it
// has finished, so any lane may take it next, and the pool holds what is in flight.
import type { DType } from '../../core/base/dtype.js';
import type { Device } from '../../core/device/device.js';
import { HostArray, type Memory } from '../../core/memory/memory.js';

/** The key of pooled memory: its kind, device, element type and length. */
export function bufferKey(host: boolean, device: Device, dtype: DType, length: number): string {
  return `${host ? 'h' : 'd'}:${String(device)}:${dtype}:${length}`;
}

/** The free buffers of one pool. */
export class Buffers {
  readonly #free = new Map<string, Memory[]>();
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

  /** A free buffer of `key`, or a new one from `create`. */
  take(key: string, create: () => Memory): Memory {
    const reused = this.#free.get(key)?.pop();
    if (!reused) this.#created++;
    this.#inUse++;
    return reused ?? create();
  }

  /** Takes back a buffer whose work has finished; with `closed`, frees it instead. */
  give(memory: Memory, closed: boolean): void {
    this.#inUse--;
    if (closed) return memory.closeIdle();
    const key = bufferKey(memory instanceof HostArray, memory.device, memory.dtype, memory.length);
    let list = this.#free.get(key);
    if (!list) this.#free.set(key, (list = []));
    list.push(memory);
  }

  /**
   * Frees every free buffer. Their work has finished: pinned blocks go back for reuse at once
   * (see pinned-cache.ts). A broken device's memory goes with its context: its frees fail and
   * are let be.
   */
  close(): void {
    for (const list of this.#free.values())
      for (const memory of list) {
        try {
          memory.closeIdle();
        } catch {}
      }
    this.#free.clear();
  }
}
