import { Observable, type OperatorFunction } from 'rxjs';
import { DTYPES, type DType, type TypedArrayOf } from '../core/base/dtype.js';
import { MAIN_THREAD_COPY_BYTES, copyHost, copySmall, type CopyRoad } from '../core/memory/host-copy.js';
import { LentArray, type LentArrayOwner, makeLentArray } from '../core/memory/lent-array.js';
import { ArgumentTypeError, typeError } from '../core/base/errors.js';
import { bufferOf, lengthOf, typedArrayName } from '../core/base/buffers.js';
import { checkOptions } from '../core/base/options.js';
import { checkMemoryOf } from '../core/memory/checks.js';
import { markUntransferable } from '../core/memory/user-arrays.js';
import type { HostArray, Memory } from '../core/api/memory.js';
import { WhenDone, operate } from './pipeline/operate.js';
import type { AnyWork, Work } from './pipeline/work.js';
import { checkSlotName, type With } from './pipeline/slots.js';
import { stagingArray, lendMemory, isTimed, stageWork, hostSpan } from './pipeline/work.js';

/** Options for {@link download} of memory of element type `D`, from values `W`. */
export interface DownloadOptions<W extends AnyWork = AnyWork, D extends DType = DType> {
  /**
   * Where the data goes: a TypedArray of the memory's element type and at least its length,
   * written (by native threads when it is large) once the device's copy has finished, before the
   * value is emitted. Without it each value gets a new TypedArray. Reusing arrays saves an
   * allocation per value; the caller makes sure the array is not still read for an earlier value.
   * A detached or resizable array is refused. One for a result of more than
   * MAIN_THREAD_COPY_BYTES, which native threads fill, is kept in place for them: rxcuda marks its
   * buffer untransferable (for good: `postMessage` and `structuredClone` then copy it instead of
   * moving it, or refuse it from Node 21 on). An array over a SharedArrayBuffer is never marked:
   * share results with workers through one of those.
   */
  readonly into?: (work: W) => TypedArrayOf[D];
}

/** Options for {@link download} that lend the pinned result instead of copying it. */
export interface LendOptions {
  /**
   * Emit the result in place: a {@link LentArray} over the pinned memory the device copied into,
   * with no host copy at all. `'release'`: it is yours until you call `release()` (or leave a
   * `using` block); `'next'`: it goes back by itself when this operator emits its next value.
   * Either way a returned array cannot be read any more. Lent memory is not reused meanwhile, so
   * results held longer make the lanes' pool grow; one dropped without being returned is not
   * reused at all (the garbage collector frees it once nothing reaches it).
   */
  readonly lend: 'release' | 'next';
}

/**
 * Copies a device array of each value back to the host and emits the value, on the main thread,
 * once the copy (and all device work before it) has finished; the data is at
 * `work.results[name]`: a TypedArray of its own, or the one `options.into` gave, typed by the
 * memory's element type (`DeviceArray<'u8'>` gives a `Uint8Array`), or with `{ lend }` a
 * {@link LentArray} over the pinned memory itself, the fastest road.
 *
 * Values are emitted as their work completes: values of different lanes may overtake one
 * another (sort by `work.index` where source order matters).
 *
 * @example
 * download((w) => w.buffers.input, 'pixels')
 * download((w) => w.buffers.gray, 'gray', { lend: 'next' }) // w.results.gray.data: no copy
 *
 * @param select the memory to read back, from the value.
 * @param name the result's name on the value.
 * @param options see {@link DownloadOptions} and {@link LendOptions}.
 * @default name 'output'
 * @returns an operator that emits each {@link Work} when its data is on the host.
 * @throws TypeError at once for a `select` or `into` that is not a function, a `name` that is not
 * a non-empty string, an unknown `lend`,
 * or both `lend` and `into`; PipelineError (to the subscriber) when `select` or `into` throws,
 * `select` returns no open memory of the value's device, or `into` returns an array of another
 * element type, too short, detached or over a resizable buffer.
 * @see upload
 */
export function download<T, B, R, D extends DType, N extends string = 'output'>(
  select: (work: Work<T, B, R>) => Memory<D>,
  name: N,
  options: LendOptions,
): OperatorFunction<Work<T, B, R>, Work<T, B, With<R, { readonly [K in N]: LentArray<D> }>>>;
export function download<T, B, R, D extends DType, N extends string = 'output'>(
  select: (work: Work<T, B, R>) => Memory<D>,
  name?: N,
  options?: DownloadOptions<Work<T, B, R>, D>,
): OperatorFunction<Work<T, B, R>, Work<T, B, With<R, { readonly [K in N]: TypedArrayOf[D] }>>>;
export function download<T, B, R, D extends DType, N extends string = 'output'>(
  select: (work: Work<T, B, R>) => Memory<D>,
  name: N,
  options: DownloadOptions<Work<T, B, R>, D> | LendOptions,
): OperatorFunction<Work<T, B, R>, Work<T, B, With<R, { readonly [K in N]: TypedArrayOf[D] | LentArray<D> }>>>;
export function download<T, B, R, D extends DType, N extends string = 'output'>(
  select: (work: Work<T, B, R>) => Memory<D>,
  name: N = 'output' as N,
  options: DownloadOptions<Work<T, B, R>, D> | LendOptions = {},
): OperatorFunction<Work<T, B, R>, Work<T, B, With<R, { readonly [K in N]: TypedArrayOf[D] | LentArray<D> }>>> {
  if (typeof select !== 'function') typeError('select', 'a function from a value to the memory to download', select);
  checkSlotName('name', name);
  checkOptions('options', options, ['into', 'lend']);
  const lend = 'lend' in options ? options.lend : undefined;
  if (lend !== undefined && lend !== 'release' && lend !== 'next')
    typeError('lend', "'release' or 'next'", lend);
  const into = 'into' in options ? options.into : undefined;
  if (into !== undefined && typeof into !== 'function') typeError('into', 'a function from a value to the array its result goes into', into);
  if (lend !== undefined && into !== undefined) throw new ArgumentTypeError('Expected either `lend` or `into`, got both', 'ERR_INVALID_ARG_VALUE');
  return (source) =>
    new Observable((subscriber) => {
      const next = lend === 'next' ? new NextLender() : undefined;
      const label = `download(${name})`;
      // Results attached just before the emission, from the value's staging: made once here.
      const lent = (work: Work<T, B, R>, staging: HostArray<D>) => {
        const lane = lendMemory(work, staging);
        const array = makeLentArray(staging, staging.length, next ? next.lend(staging, lane) : lane);
        next?.keep(array);
        (work.results as Record<string, LentArray<D>>)[name] = array;
      };
      const copied = (work: Work<T, B, R>, staging: HostArray<D>) => {
        // A new array of the staging's kind, with its elements: one builtin call.
        (work.results as Record<string, TypedArrayOf[DType]>)[name] = staging.data.slice(0, staging.length);
      };
      type Out = Work<T, B, With<R, { readonly [K in N]: TypedArrayOf[D] | LentArray<D> }>>;
      const whenLent = new WhenDone<Out, Work<T, B, R>, HostArray<D>>(label, subscriber, lent);
      const whenCopied = new WhenDone<Out, Work<T, B, R>, HostArray<D>>(label, subscriber, copied);
      // Into the caller's arrays, and copies on native threads: a closure per value, given as `arg`.
      const whenInto = new WhenDone<Out, Work<T, B, R>, () => void>(label, subscriber, (_, prepare) => prepare());
      type Later = (ready: () => void, fail: (error: unknown) => void) => void;
      const whenCopiedLater = new WhenDone<Out, Work<T, B, R>, Later>(label, subscriber, undefined, (_, later, ready, fail) => later(ready, fail));
      // A value's path captures nothing of its own unless it needs to (into, or a large copy), so
      // that the others allocate no context.
      const subscription = operate(label, source, subscriber, (work, expectEmission) => {
        const memory = select(work);
        checkMemoryOf('select(work)', memory, work.stream.device.engine);
        const staging = stagingArray(work, memory.dtype, memory.length);
        if (lend !== undefined) {
          copyBack(work, name, 'lent', staging, memory);
          return whenLent.emit(work, expectEmission, staging);
        }
        const target = into?.(work);
        if (target !== undefined) checkInto(target, memory);
        copyBack(work, name, target ? 'into' : 'new array', staging, memory);
        // A small copy is made on the main thread, just before the emission.
        if (memory.byteLength <= MAIN_THREAD_COPY_BYTES) {
          if (target === undefined) return whenCopied.emit(work, expectEmission, staging);
          return whenInto.emit(work, expectEmission, copyInto(work, name, target, staging));
        }
        whenCopiedLater.emit(work, expectEmission, copyLater(work, name, target, staging, memory));
      });
      if (!next) return subscription;
      return () => {
        try {
          subscription.unsubscribe();
        } finally {
          next.end();
        }
      };
    });
}

/**
 * Lends results for `lend: 'next'`: the array lent last goes back when the next is lent. The last
 * of a pipeline stays the subscriber's once it has ended (read after `lastValueFrom`, say); one
 * that is dropped without being returned goes back to the pool once nothing can read it any more
 * (its buffer collected), so that the pool's memory and counters stay flat from pipeline to
 * pipeline. One registration per pipeline, at its end: a registration per value would cost every
 * value (see lent-array.ts).
 */
class NextLender implements LentArrayOwner {
  #lent: LentArray | undefined;
  /** The memory lent last and the lane it goes back to, until it is returned. */
  #memory: HostArray | undefined;
  #lane: LentArrayOwner | undefined;

  /** Returns the array lent before, and lends `memory` of `lane` in its place: the owner to lend it with. */
  lend(memory: HostArray, lane: LentArrayOwner): LentArrayOwner {
    this.#lent?.release();
    this.#memory = memory;
    this.#lane = lane;
    return this;
  }

  /** The array made of the memory just lent. */
  keep(array: LentArray): void {
    this.#lent = array;
  }

  /** The lent array was returned (released by its holder, or by {@link lend}). */
  give(memory: HostArray): void {
    const lane = this.#lane!;
    this.#memory = this.#lane = this.#lent = undefined;
    lane.give(memory);
  }

  /** The pipeline has ended: the array lent last goes back once nothing reaches its memory. */
  end(): void {
    const lent = this.#lent;
    this.#lent = undefined; // held no more: its buffer can be collected
    if (!lent) return;
    let buffer: ArrayBufferLike;
    try {
      buffer = bufferOf(lentData.call(lent)); // not the holder's own `data` or `buffer`, if they made one
    } catch {
      return; // returned
    }
    collectedLent.register(buffer, this);
  }

  /** The lent array's buffer was collected: its memory goes back, unless it was returned before. */
  collected(): void {
    if (this.#memory !== undefined) this.give(this.#memory);
  }
}

const lentData = Object.getOwnPropertyDescriptor(LentArray.prototype, 'data')!.get! as (this: LentArray) => ArrayBufferView;

/** Gives back the memory of a lent array left at a pipeline's end, once its buffer is collected. */
const collectedLent = new FinalizationRegistry<NextLender>((lender) => {
  try {
    lender.collected();
  } catch {} // a pool closed meanwhile, whose device's memory went with it
});

/** The device copy of a value's result into its staging, as the stage `download <name> [<road>]` when timed. */
function copyBack(work: AnyWork, name: string, road: string, staging: HostArray, memory: Memory): void {
  if (!isTimed(work)) work.stream.copy(staging, memory);
  else stageWork(work, `download ${name} [${road}]`, () => work.stream.copy(staging, memory), memory.byteLength);
}

/** Refuses an `into` array that cannot take `memory`'s elements; keeps one that copy threads fill in place. */
function checkInto(target: ArrayBufferView, memory: Memory): void {
  const Array = DTYPES[memory.dtype].Array;
  // Measured through its internal slots: a subclass's getters may say anything, a Proxy has none.
  if (!(typedArrayName(target) === Array.name && lengthOf(target) >= memory.length))
    typeError('into(work)', `a ${Array.name} of at least ${memory.length} elements`, target);
  // The copy threads fill a large one once the device copy is done.
  markUntransferable('into(work)', target, memory.byteLength > MAIN_THREAD_COPY_BYTES);
}

/** A small result's copy into the caller's array, made just before the emission. */
function copyInto(work: AnyWork, name: string, target: ArrayBufferView, staging: HostArray): () => void {
  return () => {
    copySmall(target, staging.data);
    (work.results as Record<string, ArrayBufferView>)[name] = target;
  };
}

/** A large result's copy by native threads, into the caller's array or a new one, once the device copy is done. */
function copyLater(work: AnyWork, name: string, target: ArrayBufferView | undefined, staging: HostArray, memory: Memory) {
  return (ready: () => void, fail: (error: unknown) => void) => {
    // A new array is zeroed lazily by the OS: its pages are first touched by the copy.
    const out = target ?? new DTYPES[memory.dtype].Array(new ArrayBuffer(memory.byteLength), 0, memory.length);
    const start = performance.now();
    let road: CopyRoad | undefined; // still undefined when a small copy is done at once
    try {
      // Checked again here: `out` must still be attached and long enough (copyHost refuses it).
      road = copyHost(out, staging.data, () => {
        if (road) hostSpan(work, `copy ${name} [workers]`, start, memory.byteLength);
        (work.results as Record<string, ArrayBufferView>)[name] = out;
        ready();
      });
    } catch (error) {
      fail(error);
    }
  };
}
