// Pinned host blocks, kept for reuse when their arrays are freed. cuMemFreeHost waits, on the
// calling thread, for the work of every stream of the device: freeing a small array (a flag, a
// counter, one collected by the garbage collector) while a long kernel runs elsewhere would stall
// the event loop until that kernel ends. A cached block goes back to a free list instead, and the
// next array of its size class reuses it. Large blocks (frames, staging buffers) take
// milliseconds to pin: one is kept for a moment after its array is freed, for the next array of
// its exact size (a pipeline subscribed again). What nobody asks for goes back to the driver,
// through the device's free (once its known work is done, off the main thread): every large
// block after {@link KEEP_MS}, and cached blocks past {@link KEEP_CACHED_BYTES} after as long, so
// that within two seconds of a burst's last free at most that much stays pinned (docs/rules.md, "Pinned
// memory after a burst"; test/behaviour/pinned-burst.test.ts).

/** Arrays of up to this many bytes live in cached blocks. */
export const CACHED_BYTES = 1 << 20;

/** Bytes of free cached blocks kept for good; those past it are freed once unused for {@link KEEP_MS}. */
export const KEEP_CACHED_BYTES = 16 << 20;

/** How long a free block past the bounds (every large block) stays pinned for the next array of its size. */
export const KEEP_MS = 1000;

/** Bytes of large blocks kept unused at most; a block past that is freed at once. */
export const KEEP_LARGE_BYTES = 1 << 30;

/** The block size an array of `bytes` gets: a power of two, at least 256 bytes. */
export function sizeClass(bytes: number): number {
  return Math.max(256, 2 ** Math.ceil(Math.log2(bytes)));
}

/** A free block and when it was freed (`performance.now()`). */
interface Kept {
  readonly ptr: bigint;
  readonly at: number;
}

/** Free blocks by size, the newest last; `bytes` counts them all. */
class FreeLists {
  readonly lists = new Map<number, Kept[]>();
  bytes = 0;

  /** The newest block of `size`, if there is one. */
  take(size: number): bigint | undefined {
    const kept = this.lists.get(size)?.pop();
    if (!kept) return undefined;
    this.bytes -= size;
    return kept.ptr;
  }

  give(ptr: bigint, size: number): void {
    const kept = { ptr, at: performance.now() };
    const list = this.lists.get(size);
    if (list) list.push(kept);
    else this.lists.set(size, [kept]);
    this.bytes += size;
  }

  /** When the oldest block was freed, or undefined when there is none. */
  oldest(): number | undefined {
    let at: number | undefined;
    for (const list of this.lists.values()) if (list.length > 0 && (at === undefined || list[0]!.at < at)) at = list[0]!.at;
    return at;
  }

  /**
   * Takes out blocks freed at `before` or earlier while more than `keep` bytes are held, the
   * largest sizes first and the oldest first within a size (the newest are the ones reused).
   */
  drain(before: number, keep: number): bigint[] {
    const out: bigint[] = [];
    for (const size of [...this.lists.keys()].sort((a, b) => b - a)) {
      const list = this.lists.get(size)!;
      let n = 0;
      while (n < list.length && list[n]!.at <= before && this.bytes > keep) {
        this.bytes -= size;
        out.push(list[n++]!.ptr);
      }
      list.splice(0, n);
      if (list.length === 0) this.lists.delete(size);
    }
    return out;
  }
}

/** Free cached blocks of one device, by size class, and large blocks kept a moment. */
export class PinnedCache {
  readonly #cached = new FreeLists();
  readonly #large = new FreeLists();
  readonly #release: (ptrs: readonly bigint[]) => void;
  #trim: ReturnType<typeof setTimeout> | undefined;

  /**
   * @param release frees blocks nobody reused (the driver's free, off the main thread), all
   * behind one wait for the device's known work.
   */
  constructor(release: (ptrs: readonly bigint[]) => void) {
    this.#release = release;
  }

  /** A free block of `size` bytes (a size class), if one is cached. */
  take(size: number): bigint | undefined {
    return this.#cached.take(size);
  }

  /** Keeps the block at `ptr`, of `size` bytes, for reuse; nothing may use it any more. */
  give(ptr: bigint, size: number): void {
    this.#cached.give(ptr, size);
    if (this.#cached.bytes > KEEP_CACHED_BYTES) this.#schedule();
  }

  /** Bytes held in free cached blocks. */
  get freeBytes(): number {
    return this.#cached.bytes;
  }

  /** A large block of exactly `bytes` kept from a freed array, if there is one (the newest). */
  takeLarge(bytes: number): bigint | undefined {
    return this.#large.take(bytes);
  }

  /**
   * Keeps the large block at `ptr`, of `bytes`, that nothing uses any more, for
   * {@link KEEP_MS}; frees it at once when {@link KEEP_LARGE_BYTES} are kept already.
   */
  keepLarge(ptr: bigint, bytes: number): void {
    if (this.#large.bytes + bytes > KEEP_LARGE_BYTES) return this.#free([ptr]);
    this.#large.give(ptr, bytes);
    this.#schedule();
  }

  /** Bytes held in large blocks kept for reuse. */
  get keptBytes(): number {
    return this.#large.bytes;
  }

  /** Arms the timer for when the oldest block past the bounds will have waited {@link KEEP_MS}. */
  #schedule(): void {
    if (this.#trim) return;
    const cached = this.#cached.bytes > KEEP_CACHED_BYTES ? this.#cached.oldest() : undefined;
    const oldest = Math.min(cached ?? Infinity, this.#large.oldest() ?? Infinity);
    if (oldest === Infinity) return;
    // Unreferenced: a process that is done exits, and the driver takes the blocks back.
    this.#trim = setTimeout(() => {
      this.#trim = undefined;
      const before = performance.now() - KEEP_MS;
      this.#free([...this.#large.drain(before, 0), ...this.#cached.drain(before, KEEP_CACHED_BYTES)]);
      this.#schedule();
    }, Math.max(0, oldest + KEEP_MS - performance.now())).unref();
  }

  #free(blocks: readonly bigint[]): void {
    if (blocks.length === 0) return;
    try {
      this.#release(blocks);
    } catch {
      // A broken context: the driver takes the memory back with it.
    }
  }
}
