// Pinned memory lent to the user in place of a copy: a view that can be given back, after which
// no JavaScript can read it (the memory goes on to hold other data).
import { DTYPES, type DType, type TypedArrayOf } from '../base/dtype.js';
import { RxcudaError } from '../base/errors.js';
import type { HostMemoryView, MemoryView } from './memory-view.js';
import { addon } from '../native/addon.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';
import { ownBuffer } from './own-buffers.js';

// Each view's buffer holds the memory it shows, so that the memory (which is freed when the
// garbage collector finds nothing reaching it) lives as long as anything can read it. A lent array
// dropped without being returned is not reused: its memory is freed once collected. (Returning it
// to the lane pool by a FinalizationRegistry would register every lent array, and the registry's
// cells, chained to one another, kept each value's objects alive through the young generation's
// collections: at thousands of values a second, pauses of milliseconds on the main thread.)
const shown = Symbol('rxcuda.lentMemory');

/** Where lent memory goes back once returned (a lane of a pipeline's pool). */
export interface LentArrayOwner {
  give(memory: MemoryView): void;
}

/**
 * Lends the first `length` elements of `memory`, which goes back to `owner` once, when returned.
 */
export let makeLentArray: <D extends DType>(memory: HostMemoryView<D>, length: number, owner: LentArrayOwner) => LentArray<D>;

/**
 * A result read in place: `data` is a TypedArray over pinned memory that rxcuda lends until you
 * return it, with `release()`, `using`, or (by the operator's option) when the next value comes.
 * Once returned, the memory holds other results: `data` throws, and views taken from it before
 * are emptied (length 0), so stale data is never read.
 */
export class LentArray<D extends DType = DType> {
  /** The element type. */
  readonly dtype: D;
  /** Number of elements. */
  readonly length: number;
  #data: TypedArrayOf[D] | undefined;
  readonly #memory: HostMemoryView<D>;
  #owner: LentArrayOwner | undefined;

  static #make<D extends DType>(memory: HostMemoryView<D>, length: number, owner: LentArrayOwner): LentArray<D> {
    return new LentArray(CONSTRUCTOR_TOKEN, memory, length, owner);
  }

  private constructor(token: ConstructorToken, memory: HostMemoryView<D>, length: number, owner: LentArrayOwner) {
    checkConstructorToken(token, 'a LentArray', 'download(select, name, { lend })');
    this.dtype = memory.dtype;
    this.length = length;
    const buffer = ownBuffer(memory.allocation.device.backend.viewHost(memory.ptr, length * DTYPES[memory.dtype].size));
    (buffer as ArrayBuffer & { [shown]?: HostMemoryView<D> })[shown] = memory;
    this.#data = new DTYPES[memory.dtype].Array(buffer, 0, length);
    this.#memory = memory;
    this.#owner = owner;
  }

  /**
   * The elements, over pinned memory.
   * @throws RxcudaError once the array has been returned.
   */
  get data(): TypedArrayOf[D] {
    if (this.#data === undefined)
      throw new RxcudaError(`This lent ${DTYPES[this.dtype].Array.name} was returned: its memory holds other data now (copy what you keep before returning it)`);
    return this.#data;
  }

  /** True once the array has been returned. */
  get returned(): boolean {
    return this.#data === undefined;
  }

  /**
   * Returns the memory: `data` throws from now on, and every view of it is emptied. Idempotent.
   * @example
   * frames$.pipe(…, download((w) => w.buffers.out, 'out', { lend: 'release' }), tap((w) => {
   *   const out = w.results.out;
   *   save(out.data); // pinned memory, read in place
   *   out.release(); // back to the lane pool; out.data throws from now on
   * }))
   */
  release(): void {
    const data = this.#data;
    if (data === undefined) return;
    this.#data = undefined;
    addon.detachBuffer(data.buffer as ArrayBuffer);
    const owner = this.#owner!;
    this.#owner = undefined;
    owner.give(this.#memory);
  }

  /**
   * The same as `release()`, for `using`.
   * @example
   * tap((w) => {
   *   using out = w.results.out; // lent with { lend: 'release' }
   *   save(out.data);
   * }) // returned here
   */
  [Symbol.dispose](): void {
    this.release();
  }
  static {
    makeLentArray = (memory, length, owner) => LentArray.#make(memory, length, owner);
  }
}
