// Host steps: JavaScript placed in a stream's order. A step runs on the main thread when the
// stream reaches it; a held step keeps later device work waiting, on the device, on a word of
// pinned memory that the main thread writes when the step settles. Nothing blocks a driver thread.
import { CudaError, typeError, received } from './errors.js';
import { cancelCompletion, expectCompletion } from './completions.js';
import { HOST_STEP_UNITS } from './backlog.js';
import { HostArray } from './memory.js';
import type { Stream } from './stream.js';

/** A copy of the caller's bytes, of the kind the caller gave. */
export type UserData = ArrayBuffer | ArrayBufferView;

/** Options for {@link Stream.hostLaunch}. */
export interface HostLaunchOptions<D extends UserData = UserData> {
  /**
   * Bytes for the step, copied when the step is enqueued (later changes by the caller do not
   * reach the step); the step receives the copy, as the same kind of view.
   */
  readonly userData?: D;
}

/** What a stream's `error` event carries besides the error: where it came from. */
export interface HostStepContext {
  /** `hostLaunch` for a held step, `onDone` for a notification. */
  readonly kind: 'hostLaunch' | 'onDone';
  /** The function's name, or '(anonymous)'. */
  readonly name: string;
}

function isDetached(buffer: ArrayBufferLike): boolean {
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

/** @internal Copies user data at enqueue, rejecting what cannot be copied. */
export function copyUserData<D extends UserData>(userData: D | undefined): D | undefined {
  if (userData === undefined) return undefined;
  const buffer = ArrayBuffer.isView(userData) ? userData.buffer : userData;
  if (!(buffer instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && buffer instanceof SharedArrayBuffer)))
    typeError('userData', 'an ArrayBuffer, a TypedArray or a DataView', userData);
  if (isDetached(buffer)) typeError('userData', 'bytes that can be read', received('a detached buffer'));
  if (!ArrayBuffer.isView(userData)) return buffer.slice(0) as D;
  const copy = buffer.slice(userData.byteOffset, userData.byteOffset + userData.byteLength);
  if (userData instanceof DataView) return new DataView(copy) as unknown as D;
  const View = userData.constructor as new (buffer: ArrayBufferLike) => D;
  return new View(copy);
}

/** @internal Hands a step's failure to the stream's `error` listeners, or warns when there are none. */
export function reportStepError(stream: Stream, error: unknown, context: HostStepContext): void {
  if (stream.listenerCount('error') > 0) {
    stream.emit('error', error, context);
    return;
  }
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  process.emitWarning(
    `A ${context.kind} step (${context.name}) failed and the stream has no 'error' listener: ${what}`,
    'RxcudaWarning',
  );
}

/** @internal The error for a host step or notification refused on a stream under graph capture. */
export function captureRefused(call: string): CudaError {
  return new CudaError(
    900,
    'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED',
    call,
    'A host step cannot be enqueued on a stream under graph capture (it would invalidate the capture, ' +
      'which stays valid). Add the step to the graph as a host node instead, or enqueue it after ' +
      'the capture has ended.',
  );
}

/** @internal Refuses host steps during graph capture, before anything reaches the driver. */
export function checkNotCapturing(stream: Stream, call: string): void {
  if (stream.native.capturing()) throw captureRefused(call);
}

/**
 * @internal A word of pinned memory shared by a stream and the host, with increasing values: the
 * gate the device waits on for held steps (the host writes it), or the signal the device writes
 * for low-latency waits (the host watches it). Comparisons of its values are wrap-safe.
 */
export class Gate {
  readonly #word: HostArray<'u32'>;
  #last = 0;

  constructor(stream: Stream) {
    this.#word = HostArray.allocate(stream.device, 'u32', 1);
    this.#word.data[0] = 0;
    this.#word.allocation.use(stream);
  }

  get address(): bigint {
    return this.#word.ptr;
  }

  /** The value the next step's wait is released by. */
  next(): number {
    this.#last = (this.#last + 1) >>> 0;
    return this.#last;
  }

  /** Whether the word has reached `value` (the device wrote it, or a later one). */
  reached(value: number): boolean {
    const word = this.#word.data[0]; // undefined once freed
    return word !== undefined && ((word - value) | 0) >= 0;
  }

  /** Lets the device go past the wait for `value` (and every earlier one). */
  open(value: number): void {
    this.#word.data[0] = value;
  }

  /** Frees the word once the stream's work is done (it never is before the last step opened it). */
  close(): void {
    this.#word.close();
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function';
}

function nameOf(fn: Function): string {
  return fn.name || '(anonymous)';
}

/** @internal See {@link Stream.hostLaunch}. */
export function enqueueHostStep<D extends UserData>(
  stream: Stream,
  gateOf: () => Gate, // called only for a step that passed every check
  fn: (userData: D | undefined) => unknown,
  options: HostLaunchOptions<D>,
): void {
  const data = copyUserData(options.userData);
  checkNotCapturing(stream, 'cuStreamAddCallback');
  stream.backlog.admit(HOST_STEP_UNITS);
  const gate = gateOf();
  const value = gate.next();
  const context: HostStepContext = { kind: 'hostLaunch', name: nameOf(fn) };
  let enqueued = false;
  const release = () => {
    gate.open(value);
    if (!enqueued) return;
    stream.backlog.stepReleased();
    stream.device.held.released();
  };
  const fail = (error: unknown) => {
    reportStepError(stream, error, context);
    release();
  };
  const id = expectCompletion((status) => {
    if (status !== 0) return fail(stream.statusError(status));
    let result: unknown;
    try {
      result = fn(data);
    } catch (error) {
      return fail(error);
    }
    if (isThenable(result)) result.then(release, fail);
    else release();
  });
  try {
    // The notification tells the main thread to run the step; the wait holds the device until
    // the main thread writes the gate. No driver thread ever waits for JavaScript.
    stream.native.hold(id, gate.address, value);
    enqueued = true;
    stream.backlog.stepEnqueued();
    stream.device.held.enqueued();
  } catch (error) {
    // The notification may already be enqueued: whatever comes back for it now finds nothing.
    cancelCompletion(id);
    release();
    stream.device.fail(error);
  }
}

/** @internal See {@link Stream.onDone}. */
export function enqueueNotification(stream: Stream, fn: (error: CudaError | undefined) => unknown): void {
  const report = (error: unknown) => reportStepError(stream, error, { kind: 'onDone', name: nameOf(fn) });
  stream.notify((status) => {
    try {
      const result = fn(status === 0 ? undefined : stream.statusError(status));
      if (isThenable(result)) result.then(undefined, report);
    } catch (error) {
      report(error);
    }
  }, 'cuStreamAddCallback');
}
