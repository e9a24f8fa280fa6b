// What a host step is given besides its function: bytes copied at enqueue, and a timeout.
import { bufferOf, bytesOf, isDetached, isSharedArrayBuffer, isView, viewLike } from '../base/buffers.js';
import { rangeError, received, typeError } from '../base/errors.js';

/** A copy of the caller's bytes, of the kind the caller gave. */
export type UserData = ArrayBuffer | ArrayBufferView;

/** Options for {@link Stream.hostLaunch}. */
export interface HostLaunchOptions<D extends UserData = UserData> {
  /**
   * Bytes for the step, copied when the step is enqueued (later changes by the caller do not
   * reach the step); the step receives the copy, as the same kind of view.
   */
  readonly userData?: D;
  /**
   * Milliseconds the step may take once it has started (an integer, 1 to 2^31 - 1). Past it the
   * step is given up: the stream goes on, a {@link HostStepTimeoutError} goes to the stream's
   * `error` event, and a later settle of the step is ignored. The timer holds the process like any
   * timer while the stream is open; `close()` lets it go, so that a closed stream's step never
   * keeps the process alive. Without it, a step that never settles holds its stream for good.
   * @default undefined (no timeout)
   */
  readonly timeout?: number;
}

/** The options {@link HostLaunchOptions} declares. */
export const HOST_LAUNCH_OPTIONS: readonly string[] = ['timeout', 'userData'];

/** The longest delay setTimeout takes. */
const MAX_TIMEOUT = 2 ** 31 - 1;

/** Checks a step's `timeout` option. */
export function checkTimeout(timeout: unknown): number | undefined {
  if (timeout === undefined) return undefined;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout)) typeError('timeout', 'an integer number of milliseconds', timeout);
  if (timeout < 1 || timeout > MAX_TIMEOUT) rangeError('timeout', `1..${MAX_TIMEOUT} milliseconds`, timeout);
  return timeout;
}

/**
 * Copies user data at enqueue, rejecting what cannot be copied: the bytes its slots measure
 * (buffers.ts), into a buffer of the kind it was over, as a plain view of its kind.
 */
export function copyUserData<D extends UserData>(userData: D | undefined): D | undefined {
  if (userData === undefined) return undefined;
  const bytes = bytesOf(userData);
  if (bytes === undefined) typeError('userData', 'an ArrayBuffer, a TypedArray or a DataView', userData);
  if (isDetached(isView(userData) ? bufferOf(userData) : (userData as ArrayBufferLike)))
    typeError('userData', 'bytes that can be read', received('a detached buffer'));
  const copy = isSharedArrayBuffer(bytes.buffer) ? new SharedArrayBuffer(bytes.byteLength) : new ArrayBuffer(bytes.byteLength);
  new Uint8Array(copy).set(bytes);
  return (isView(userData) ? viewLike(userData, copy) : copy) as D;
}
