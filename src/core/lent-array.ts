// Pinned memory lent to the user in place of a copy: a view that can be given back, after which
// no JavaScript can read it (the memory goes on to hold other data).
import { DTYPES, type DType, type TypedArrayOf } from './dtype.js';
import { RxcudaError } from './errors.js';
import type { HostArray } from './memory.js';
import { addon } from './native.js';

// A lent array dropped without release() goes back once nothing can reach its view.
const dropped = new FinalizationRegistry<() => void>((giveBack) => giveBack());

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
  #giveBack: (() => void) | undefined;

  /** @internal Lends the first `length` elements of `memory`; `giveBack` runs once, when returned. */
  constructor(memory: HostArray<D>, length: number, giveBack: () => void) {
    this.dtype = memory.dtype;
    this.length = length;
    const buffer = addon.hostView(memory.ptr, length * DTYPES[memory.dtype].size);
    this.#data = new DTYPES[memory.dtype].Array(buffer, 0, length);
    this.#giveBack = giveBack;
    dropped.register(buffer, giveBack, this);
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

  /** Returns the memory: `data` throws from now on, and every view of it is emptied. Idempotent. */
  release(): void {
    const data = this.#data;
    if (data === undefined) return;
    this.#data = undefined;
    dropped.unregister(this);
    addon.detachBuffer(data.buffer as ArrayBuffer);
    const giveBack = this.#giveBack!;
    this.#giveBack = undefined;
    giveBack();
  }

  [Symbol.dispose](): void {
    this.release();
  }
}
