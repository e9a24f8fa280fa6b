// Typed pipeline slots: the names and element types of the device arrays and host results that
// operators attach to a value travel in the type of its Work envelope, so that user code reads
// `w.buffers.gray` as a DeviceArray<'u8'> and `w.results.gray` as a Uint8Array.
import type { DType, TypedArrayOf } from '../../core/base/dtype.js';
import type { DeviceArray } from '../../core/api/memory.js';
import { typeError } from '../../core/base/errors.js';

declare const slotName: unique symbol;

/**
 * A device array from `work.device(dtype, length, name)`, whose type remembers its name: an
 * operator that gets it back (among `launch`'s arguments, or returned from an `enqueue` or
 * `fanOut` callback) adds it to the value's buffers under that name for the operators after it.
 * At run time it is a plain DeviceArray.
 */
export type NamedArray<N extends string, D extends DType> = DeviceArray<D> & {
  /** The name, in the type alone (no such property exists at run time). */
  readonly [slotName]: N;
};

/** The host element type of each TypedArray that `upload` takes. */
interface DTypeOfTag {
  Int8Array: 'i8';
  Uint8Array: 'u8';
  Int16Array: 'i16';
  Uint16Array: 'u16';
  Int32Array: 'i32';
  Uint32Array: 'u32';
  BigInt64Array: 'i64';
  BigUint64Array: 'u64';
  Float32Array: 'f32';
  Float64Array: 'f64';
}

/** Host data that `upload` copies to the device: a TypedArray other than Uint8ClampedArray. */
export type HostData = TypedArrayOf[Exclude<DType, 'f16' | 'bf16'>];

/** The element type of the device array that `upload` makes for data `A` (a Uint8Array: 'u8'). */
export type DTypeOfData<A extends HostData> = DTypeOfTag[A[typeof Symbol.toStringTag]];

/**
 * Slots `B` with the slots of `S` added; a name that `B` has already is replaced, as the
 * operators replace it at run time.
 */
export type With<B, S> = B extends unknown // resolved here, so editors show the slots, not nested With<…>
  ? { readonly [K in keyof B | keyof S]: K extends keyof S ? S[K] : K extends keyof B ? B[K] : never }
  : never;

type Elements<X> = X extends readonly unknown[] ? X[number] : X;

type SlotOf<E> = E extends { readonly [slotName]: infer N extends string }
  ? E extends DeviceArray<infer D>
    ? { readonly [K in N]: DeviceArray<D> }
    : never
  : never;

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/**
 * The buffers named by the {@link NamedArray}s in `X`: one of them, or a tuple or array of
 * values (such as kernel arguments) among which they are; `{}` when there is none.
 */
export type NamedIn<X> = Intersection<SlotOf<Elements<X>>>;

/**
 * Throws a TypeError naming `name` unless `value` can name a slot of `work.buffers` or
 * `work.results`: a non-empty string other than `__proto__` (which would replace the slots'
 * prototype instead of naming one).
 */
export function checkSlotName(name: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value === '' || value === '__proto__') typeError(name, 'a non-empty string other than "__proto__"', value);
}
