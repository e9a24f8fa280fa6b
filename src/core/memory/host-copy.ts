// Host-to-host copies that keep the main thread free: a large copy is cut into chunks that native
// threads copy in parallel, and its completion comes back through the completion queue.
import { expectCompletion } from '../native/completions.js';
import { addon } from '../native/addon.js';
import { bufferOf, byteLengthOf, byteOffsetOf, lengthOf, typedArrayName } from '../base/buffers.js';
import { rangeError, received, typeError } from '../base/errors.js';
import { MOVABLE_EXPECTED, whyMovable } from './user-arrays.js';

/**
 * Copies up to this many bytes on the main thread: below it, handing a copy to native threads
 * and hearing back costs more than the copy itself.
 */
export const MAIN_THREAD_COPY_BYTES = 256 * 1024;

/**
 * Copies the bytes of `src` into `dst` (at least as long) on the main thread, now: for copies of
 * at most {@link MAIN_THREAD_COPY_BYTES}. Arrays of one kind copy into each other directly;
 * others through byte views of their memory. Both are measured through their slots (buffers.ts).
 * @throws RangeError for a `dst` shorter than `src`; nothing is copied then.
 */
export function copySmall(dst: ArrayBufferView, src: ArrayBufferView): void {
  const kind = typedArrayName(src);
  if (kind !== undefined && kind === typedArrayName(dst) && lengthOf(dst) >= lengthOf(src)) return void setElements.call(dst, src);
  const bytes = byteLengthOf(src);
  checkRoom(dst, bytes);
  new Uint8Array(bufferOf(dst), byteOffsetOf(dst), bytes).set(new Uint8Array(bufferOf(src), byteOffsetOf(src), bytes));
}

/** Refuses a `dst` of fewer than `bytes` (as its slots measure it, whatever its getters say). */
function checkRoom(dst: ArrayBufferView, bytes: number): void {
  const room = byteLengthOf(dst);
  if (room < bytes) rangeError('dst', `at least ${bytes} bytes, as \`src\` has`, received(`${room} bytes`));
}

/** %TypedArray%.prototype.set, which the arrays' own classes may not redefine for rxcuda. */
const setElements = (Object.getPrototypeOf(Int8Array.prototype) as { set: (this: unknown, source: unknown) => void }).set;

/** Where a copy ran: on native threads, or on the main thread (a small one). */
export type CopyRoad = 'workers' | 'main';

/**
 * Copies the bytes of `src` into `dst` (at least as long) and calls `done` on the main
 * thread once they are there: at once for a small copy, after native threads copied a large one.
 * Both arrays are held until then; neither may be written meanwhile, and arrays of the user's
 * are kept in place (user-arrays.ts's markUntransferable) by the caller.
 * @throws TypeError for a detached or resizable side, RangeError for a `dst` shorter than `src`;
 * nothing is copied then.
 */
export function copyHost(dst: ArrayBufferView, src: ArrayBufferView, done: () => void): CopyRoad {
  const bytes = byteLengthOf(src);
  // Checked where it matters, just before the bytes move: an array moved away since its command
  // was checked (by code that ignores its untransferable mark) is refused, never copied.
  checkInPlace('dst', dst);
  checkInPlace('src', src);
  checkRoom(dst, bytes);
  if (bytes <= MAIN_THREAD_COPY_BYTES) {
    copySmall(dst, src);
    done();
    return 'main';
  }
  // The handler's closure holds both arrays until the native threads are done with them.
  const id = expectCompletion(() => {
    void dst;
    void src;
    done();
  });
  addon.copyHost(id, dst, src, bytes);
  return 'workers';
}

function checkInPlace(name: string, view: ArrayBufferView): void {
  const why = whyMovable(view);
  if (why !== undefined) typeError(name, MOVABLE_EXPECTED, received(why));
}

/**
 * The native threads that large host copies run on (started by this call if not yet running).
 * @example
 * console.log(`large host copies run on ${copyThreads()} threads`); // RXCUDA_COPY_THREADS sets it
 */
export function copyThreads(): number {
  return addon.copyThreads();
}
