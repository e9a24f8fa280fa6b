// Arrays of the user's that native code reads or writes off the main thread: registered arrays
// (the device and the host device's threads copy from and to them), upload sources and download
// targets (the copy threads read and fill them). Their memory must stay where it is until that
// work is done: a buffer transferred away is freed once its new owner is collected, and a
// resizable one shrunk gives its pages back, under a copy that is still running.
//
// The rule, on every road: rxcuda holds the buffer (the work that uses it references it), marks it
// untransferable with Node's own `markAsUntransferable` when native code touches it off the main
// thread (as Node marks its Buffer pool: `postMessage` and `structuredClone` then copy it instead
// of moving it, or refuse it from Node 21 on), and refuses, before anything is enqueued, an array
// whose buffer is detached or resizable. A SharedArrayBuffer needs no mark: it is never detached,
// and a growable one only grows.
import { markAsUntransferable } from 'node:worker_threads';
import { bufferOf, isDetached, isResizable, isSharedArrayBuffer, typedArrayName } from '../base/buffers.js';
import { received, typeError } from '../base/errors.js';
import { isOwnBuffer } from './own-buffers.js';

/** What the refusals say an array must be. */
export const MOVABLE_EXPECTED = 'a TypedArray whose buffer is attached and of fixed length';

/** `Float32Array`, as messages name an array's kind (its slot's, whatever its class says). */
function kindOf(view: ArrayBufferView): string {
  return typedArrayName(view) ?? 'DataView';
}

/**
 * Why `view` cannot be kept where it is, in the words of a refusal (`a detached Float32Array`), or
 * undefined when it can.
 */
export function whyMovable(view: ArrayBufferView): string | undefined {
  const buffer = bufferOf(view);
  if (isDetached(buffer)) return `a detached ${kindOf(view)}`;
  if (isResizable(buffer)) return `a ${kindOf(view)} over a resizable ArrayBuffer`;
  return undefined;
}

/**
 * Keeps the memory of `view`, an array of the user's that native code reads or writes, where it
 * is (kept alive and untransferable): refuses a detached or resizable buffer and, when native code will touch it off the main
 * thread (`offThread`: a registered array, a host copy past MAIN_THREAD_COPY_BYTES), marks the
 * buffer untransferable (for good: Node has no way back). An array copied on the main thread, in
 * the call, needs no mark: nothing can move it meanwhile. The caller holds the view until the work
 * is done.
 * @throws TypeError naming `name`: ``Expected `data` to be a TypedArray whose buffer is attached
 * and of fixed length, got a detached Float32Array``.
 */
export function markUntransferable(name: string, view: ArrayBufferView, offThread = true): void {
  const why = whyMovable(view);
  if (why !== undefined) typeError(name, MOVABLE_EXPECTED, received(why));
  const buffer = bufferOf(view);
  // A SharedArrayBuffer is never detached, and rxcuda's own memory never moved (own-buffers.ts).
  if (offThread && !isSharedArrayBuffer(buffer) && !isOwnBuffer(buffer)) markAsUntransferable(buffer);
}
