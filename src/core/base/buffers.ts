// The user's arrays and buffers, measured through their internal slots: the intrinsic getters of
// %TypedArray%.prototype, DataView.prototype and ArrayBuffer.prototype, taken once at load and
// called on the object. A subclass or an own property may redefine `length`, `byteLength`,
// `byteOffset` or `buffer` to say anything; native code addresses the bytes the slots say, so
// every size rxcuda acts on is read here. A Proxy has no slots: it is no array here.

import { types } from 'node:util';

/** A TypedArray or a DataView, as measured here. */
export type View = ArrayBufferView;

function getter(prototype: object, key: PropertyKey): (this: unknown) => unknown {
  return Object.getOwnPropertyDescriptor(prototype, key)!.get! as (this: unknown) => unknown;
}

const TYPED_ARRAY = Object.getPrototypeOf(Int8Array.prototype) as object;
const typedName = getter(TYPED_ARRAY, Symbol.toStringTag); // undefined for anything but a TypedArray
const typedLength = getter(TYPED_ARRAY, 'length');
const typedByteLength = getter(TYPED_ARRAY, 'byteLength');
const typedByteOffset = getter(TYPED_ARRAY, 'byteOffset');
const typedBuffer = getter(TYPED_ARRAY, 'buffer');
const viewByteLength = getter(DataView.prototype, 'byteLength');
const viewByteOffset = getter(DataView.prototype, 'byteOffset');
const viewBuffer = getter(DataView.prototype, 'buffer');
const arrayBufferByteLength = getter(ArrayBuffer.prototype, 'byteLength');
const arrayBufferResizable = (() => {
  const descriptor = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'resizable'); // Node 20 and later
  return descriptor?.get as ((this: unknown) => unknown) | undefined;
})();
const sharedByteLength = typeof SharedArrayBuffer === 'undefined' ? undefined : getter(SharedArrayBuffer.prototype, 'byteLength');

/** The kind of a TypedArray (`'Float32Array'`), from its slots; undefined for anything else (a Proxy of one included). */
export function typedArrayName(value: unknown): string | undefined {
  return typedName.call(value) as string | undefined;
}

/** Whether `value` is a TypedArray itself (never a Proxy of one, whatever its getters say). */
export function isTypedArray(value: unknown): value is View {
  return typedName.call(value) !== undefined;
}

// The kind checks below read the internal slots through node:util's `types`, which never throw:
// a check by calling a getter that throws on the wrong kind cost 30 µs per call (the exception's
// stack), on every upload's ArrayBuffer.

/** Whether `value` is a DataView itself (never a Proxy of one). */
export function isDataView(value: unknown): value is DataView {
  return types.isDataView(value);
}

/** Whether `value` is a TypedArray or a DataView itself (`ArrayBuffer.isView`, which a Proxy fails too). */
export function isView(value: unknown): value is View {
  return ArrayBuffer.isView(value);
}

/** Whether `value` is an ArrayBuffer itself (not a SharedArrayBuffer, not a Proxy). */
export function isArrayBuffer(value: unknown): value is ArrayBuffer {
  return types.isArrayBuffer(value);
}

/** Whether `value` is a SharedArrayBuffer itself (not a Proxy). */
export function isSharedArrayBuffer(value: unknown): value is SharedArrayBuffer {
  return sharedByteLength !== undefined && types.isSharedArrayBuffer(value);
}

/** The elements of a TypedArray (bytes of a DataView); 0 once detached. */
export function lengthOf(view: View): number {
  return isTypedArray(view) ? (typedLength.call(view) as number) : byteLengthOf(view);
}

/** The bytes of a view; 0 once detached. */
export function byteLengthOf(view: View): number {
  if (isTypedArray(view)) return typedByteLength.call(view) as number;
  try {
    return viewByteLength.call(view) as number;
  } catch {
    return 0; // a DataView over a detached buffer throws where a TypedArray says 0 (rare: no fast path needed)
  }
}

/** Where a view starts in its buffer; 0 once detached. */
export function byteOffsetOf(view: View): number {
  if (isTypedArray(view)) return typedByteOffset.call(view) as number;
  try {
    return viewByteOffset.call(view) as number;
  } catch {
    return 0;
  }
}

/** The buffer of a view. */
export function bufferOf(view: View): ArrayBufferLike {
  return (isTypedArray(view) ? typedBuffer.call(view) : viewBuffer.call(view)) as ArrayBufferLike;
}

/** The bytes of an ArrayBuffer or a SharedArrayBuffer; 0 once detached. */
export function bufferByteLength(buffer: ArrayBufferLike): number {
  return (isSharedArrayBuffer(buffer) ? sharedByteLength!.call(buffer) : arrayBufferByteLength.call(buffer)) as number;
}

/** Whether `buffer` is an ArrayBuffer that `resize()` may shrink. */
export function isResizable(buffer: ArrayBufferLike): boolean {
  return arrayBufferResizable !== undefined && !isSharedArrayBuffer(buffer) && arrayBufferResizable.call(buffer) === true;
}

/**
 * A Uint8Array over the bytes of a view, an ArrayBuffer or a SharedArrayBuffer, as their slots
 * measure them (none once detached); undefined for anything else (a Proxy of one included).
 */
export function bytesOf(value: unknown): Uint8Array | undefined {
  const view = isView(value);
  if (!view && !isArrayBuffer(value) && !isSharedArrayBuffer(value)) return undefined;
  const buffer = view ? bufferOf(value) : value;
  if (isDetached(buffer)) return new Uint8Array(0); // none: a view of it cannot even be made
  return view ? new Uint8Array(buffer, byteOffsetOf(value), byteLengthOf(value)) : new Uint8Array(buffer);
}

type ViewKind = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => View;
const KINDS: Readonly<Record<string, ViewKind>> = Object.freeze({
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  BigInt64Array, BigUint64Array, Float32Array, Float64Array, DataView,
} as Record<string, ViewKind>);

/** A plain view of the kind of `view` (a DataView, or a TypedArray of its slot's kind) over the whole of `buffer`. */
export function viewLike<V extends View>(view: V, buffer: ArrayBufferLike): V {
  const kind = typedArrayName(view) ?? 'DataView';
  return new (KINDS[kind] as new (buffer: ArrayBufferLike) => V)(buffer);
}

/**
 * A plain view of the kind of `view` (its own class's, for a subclass) over the same bytes: what
 * rxcuda keeps and reads, so that no getter of the user's answers for it later.
 */
export function plainView<V extends View>(view: V): V {
  const kind = typedArrayName(view) ?? 'DataView';
  const buffer = bufferOf(view);
  if (isDetached(buffer)) return new KINDS[kind]!(new ArrayBuffer(0), 0, 0) as V; // as empty as it is
  return new KINDS[kind]!(buffer, byteOffsetOf(view), lengthOf(view)) as V;
}

/** Whether `buffer` was detached (transferred away, or emptied): its memory is not its own any more. */
export function isDetached(buffer: ArrayBufferLike): boolean {
  if (bufferByteLength(buffer) !== 0) return false;
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}
