// Small pinned host blocks, kept for reuse when their arrays are freed. cuMemFreeHost waits, on the
// calling thread, for the work of every stream of the device: freeing a small array (a flag, a
// counter, one collected by the garbage collector) while a long kernel runs elsewhere would stall
// the event loop until that kernel ends. A cached block goes back to a free list instead, and the
// next array of its size class reuses it; the driver takes cached blocks back with the context.

/** Arrays of up to this many bytes live in cached blocks. */
export const CACHED_BYTES = 1 << 20;

/** The block size an array of `bytes` gets: a power of two, at least 256 bytes. */
export function sizeClass(bytes: number): number {
  return Math.max(256, 2 ** Math.ceil(Math.log2(bytes)));
}

/** @internal Free cached blocks of one device, by size class. */
export class PinnedCache {
  readonly #free = new Map<number, bigint[]>();

  /** A free block of `size` bytes (a size class), if one is cached. */
  take(size: number): bigint | undefined {
    return this.#free.get(size)?.pop();
  }

  /** Keeps the block at `ptr`, of `size` bytes, for reuse; nothing may use it any more. */
  give(ptr: bigint, size: number): void {
    const list = this.#free.get(size);
    if (list) list.push(ptr);
    else this.#free.set(size, [ptr]);
  }

  /** Bytes held in free blocks. */
  get freeBytes(): number {
    let bytes = 0;
    for (const [size, list] of this.#free) bytes += size * list.length;
    return bytes;
  }
}
