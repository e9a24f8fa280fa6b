// Pinned host blocks, kept for reuse when their arrays are freed. cuMemFreeHost waits, on the
// calling thread, for the work of every stream of the device: freeing a small array (a flag, a
// counter, one collected by the garbage collector) while a long kernel runs elsewhere would stall
// the event loop until that kernel ends. A cached block goes back to a free list instead, and the
// next array of its size class reuses it; the driver takes cached blocks back with the context.
// Large blocks (frames, staging buffers) take milliseconds to pin: one is kept for a moment after
// its array is freed, for the next array of its exact size (a pipeline subscribed again), and
// freed when nobody asked for it.

/** Arrays of up to this many bytes live in cached blocks. */
export const CACHED_BYTES = 1 << 20;

/** How long a large block stays pinned, unused, for the next array of its size. */
export const KEEP_LARGE_MS = 1000;

/** Bytes of large blocks kept unused at most; a block past that is freed at once. */
export const KEEP_LARGE_BYTES = 1 << 30;

/** The block size an array of `bytes` gets: a power of two, at least 256 bytes. */
export function sizeClass(bytes: number): number {
  return Math.max(256, 2 ** Math.ceil(Math.log2(bytes)));
}

/** @internal Free cached blocks of one device, by size class, and large blocks kept a moment. */
export class PinnedCache {
  readonly #free = new Map<number, bigint[]>();
  readonly #large = new Map<number, { ptr: bigint; at: number }[]>();
  readonly #freeLarge: (ptr: bigint) => void;
  #largeBytes = 0;
  #trim: ReturnType<typeof setTimeout> | undefined;

  /** @param freeLarge frees a large block nobody reused (the driver's free, off the main thread). */
  constructor(freeLarge: (ptr: bigint) => void) {
    this.#freeLarge = freeLarge;
  }

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

  /** A large block of exactly `bytes` kept from a freed array, if there is one (the newest). */
  takeLarge(bytes: number): bigint | undefined {
    const kept = this.#large.get(bytes)?.pop();
    if (!kept) return undefined;
    this.#largeBytes -= bytes;
    return kept.ptr;
  }

  /**
   * Keeps the large block at `ptr`, of `bytes`, that nothing uses any more, for
   * {@link KEEP_LARGE_MS}; frees it at once when {@link KEEP_LARGE_BYTES} are kept already.
   */
  keepLarge(ptr: bigint, bytes: number): void {
    if (this.#largeBytes + bytes > KEEP_LARGE_BYTES) return this.#freeLarge(ptr);
    const list = this.#large.get(bytes);
    const kept = { ptr, at: performance.now() };
    if (list) list.push(kept);
    else this.#large.set(bytes, [kept]);
    this.#largeBytes += bytes;
    this.#schedule();
  }

  /** Bytes held in large blocks kept for reuse. */
  get keptBytes(): number {
    return this.#largeBytes;
  }

  #schedule(): void {
    if (this.#trim || this.#largeBytes === 0) return;
    // Unreferenced: a process that is done exits, and the driver takes the blocks back.
    this.#trim = setTimeout(() => {
      this.#trim = undefined;
      const old = performance.now() - KEEP_LARGE_MS;
      for (const [bytes, list] of this.#large) {
        // Oldest first: the newest are taken first, so the old ones are those nobody wanted.
        while (list.length > 0 && list[0]!.at <= old) {
          this.#largeBytes -= bytes;
          const { ptr } = list.shift()!;
          try {
            this.#freeLarge(ptr);
          } catch {
            // A broken context: the driver takes the memory back with it.
          }
        }
        if (list.length === 0) this.#large.delete(bytes);
      }
      this.#schedule();
    }, KEEP_LARGE_MS).unref();
  }
}
