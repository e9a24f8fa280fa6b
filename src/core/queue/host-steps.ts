// Host steps: JavaScript placed in a stream's order. The stream reaches a step's notification,
// the completion road runs the step on the main thread, and the device work enqueued after it
// waits in the stream's queue (scheduler.ts) until it settles: the device never waits for it.
import { CudaError, HostStepTimeoutError, describeFailure, isInstance, nameOf, rangeError, typeError, received } from '../base/errors.js';
import { cancelCompletion, expectCompletion, onCompletion, reserveCompletion } from '../native/completions.js';
import { NOTIFY_OFF_STREAM, NOTIFY_REFUSE_CAPTURE } from '../native/types.js';
import type { Command, Pause, Resume } from './scheduler.js';
import type { Stream } from '../device/stream.js';
import { isThenable } from '../base/thenable.js';

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

/** @internal Checks a step's `timeout` option. */
export function checkTimeout(timeout: unknown): number | undefined {
  if (timeout === undefined) return undefined;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout)) typeError('timeout', 'an integer number of milliseconds', timeout);
  if (timeout < 1 || timeout > MAX_TIMEOUT) rangeError('timeout', `1..${MAX_TIMEOUT} milliseconds`, timeout);
  return timeout;
}

/** The longest delay setTimeout takes. */
const MAX_TIMEOUT = 2 ** 31 - 1;

/** What a stream's `error` event carries besides the error: where it came from. */
export interface HostStepContext {
  /**
   * `hostLaunch` for a host step, `onDone` for a notification, `launch` for a kernel's CPU
   * implementation on the host device, `enqueue` for device work that failed when it left the
   * stream's queue for the driver (its caller had returned long before).
   */
  readonly kind: 'hostLaunch' | 'onDone' | 'launch' | 'enqueue';
  /**
   * The function's name, or '(anonymous)'; for `launch`, the kernel's name; for `enqueue`, the
   * driver call.
   */
  readonly name: string;
}

/**
 * @internal Where failures of the steps and queued commands enqueued while it is in force go,
 * instead of the stream's `error` event: a pipeline's subscriber. It answers false when it could
 * not take the failure; the stream's event then has it.
 */
export type FailureRoute = (error: unknown) => boolean;

let route: FailureRoute | undefined;

/**
 * @internal Calls `enqueue` with failures of what it enqueues (on any stream) sent to `to`: a step
 * captures the route when it is enqueued, and a queued command when it is given to its stream.
 */
export function routingFailures<T>(to: FailureRoute, enqueue: () => T): T {
  const outer = route;
  route = to;
  try {
    return enqueue();
  } finally {
    route = outer;
  }
}

/**
 * @internal `command` as it must wait in a stream's queue: it runs under the route in force now,
 * and its own failure goes there too (the command itself when no route is in force).
 */
export function routedCommand(stream: Stream, command: Command): Command {
  const to = route;
  if (!to) return command;
  return () => {
    try {
      return routingFailures(to, command);
    } catch (error) {
      stream.device.recordFailure(error);
      if (!offer(to, error)) throw error;
    }
  };
}

/** Hands `error` to a route; false when it did not take it. */
function offer(to: FailureRoute | undefined, error: unknown): boolean {
  if (!to) return false;
  try {
    return to(error);
  } catch {
    return false;
  }
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
  if (!(isInstance(buffer, ArrayBuffer) || (typeof SharedArrayBuffer !== 'undefined' && isInstance(buffer, SharedArrayBuffer))))
    typeError('userData', 'an ArrayBuffer, a TypedArray or a DataView', userData);
  if (isDetached(buffer)) typeError('userData', 'bytes that can be read', received('a detached buffer'));
  if (!ArrayBuffer.isView(userData)) return buffer.slice(0) as D;
  const copy = buffer.slice(userData.byteOffset, userData.byteOffset + userData.byteLength);
  if (userData instanceof DataView) return new DataView(copy) as unknown as D;
  const View = userData.constructor as new (buffer: ArrayBufferLike) => D;
  return new View(copy);
}

/** The code of the process warning for a step failure that no `error` listener heard. */
export const STEP_FAILED_WARNING = 'RXCUDA_STEP_FAILED';

/**
 * @internal Hands a failure to its route (a pipeline's subscriber) if it has one that takes it,
 * else to the stream's `error` listeners, or, when there are none, emits a process warning (code
 * {@link STEP_FAILED_WARNING}). Never throws: a listener that throws is reported the same way,
 * since the stream goes on.
 */
export function reportStepError(stream: Stream, error: unknown, context: HostStepContext, to?: FailureRoute): void {
  if (offer(to, error)) return;
  try {
    if (stream.listenerCount('error') > 0) {
      stream.emit('error', error, context);
      return;
    }
  } catch (thrown) {
    error = thrown;
  }
  try {
    process.emitWarning(`A ${context.kind} step (${context.name}) failed and the stream has no 'error' listener: ${describeFailure(error)}`, {
      type: 'RxcudaWarning',
      code: STEP_FAILED_WARNING,
    });
  } catch {
    // A 'warning' machinery that throws (a monkey-patched emitWarning): nothing more can be said.
  }
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
 * The timers of the steps with a timeout that are running, per stream, so that `close()` can let
 * them go: a closed stream's step does not keep the process alive.
 */
const stepTimers = {
  running: new WeakMap<Stream, Set<NodeJS.Timeout>>(),
  start(stream: Stream, timeout: number, expire: () => void): NodeJS.Timeout {
    const timer = setTimeout(expire, timeout);
    if (stream.closed) timer.unref();
    else {
      let timers = this.running.get(stream);
      if (!timers) this.running.set(stream, (timers = new Set()));
      timers.add(timer);
    }
    return timer;
  },
  delete(stream: Stream, timer: NodeJS.Timeout): void {
    clearTimeout(timer);
    this.running.get(stream)?.delete(timer);
  },
};

/** @internal At `close()`: the timeouts of the stream's running steps no longer hold the process. */
export function letStepTimersGo(stream: Stream): void {
  const timers = stepTimers.running.get(stream);
  if (!timers) return;
  for (const timer of timers) timer.unref();
  stepTimers.running.delete(stream);
}

/**
 * @internal Enqueues the notification for `id` (refused under graph capture: nothing enqueued,
 * and the refusal thrown).
 */
function notifyRefusingCapture(stream: Stream, id: number, offStream = false): void {
  let enqueued: boolean;
  try {
    enqueued = stream.native.notify(id, NOTIFY_REFUSE_CAPTURE | (offStream ? NOTIFY_OFF_STREAM : 0));
  } catch (error) {
    cancelCompletion(id);
    throw error;
  }
  if (!enqueued) {
    cancelCompletion(id);
    throw captureRefused('cuStreamAddCallback');
  }
}

/**
 * @internal The command of a host step: it enqueues the step's notification and pauses the
 * stream's queue until the step has run and settled (its Promise, for an async step). The queue
 * goes on before the failure of a step is reported, so that a report that fails holds nothing.
 */
export function hostStep(stream: Stream, run: () => unknown, context: HostStepContext, timeout?: number): Command {
  return (): Pause => {
    const to = route;
    let resume: Resume | undefined;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const release = () => {
      if (settled) return false;
      settled = true;
      if (timer) stepTimers.delete(stream, timer);
      resume?.();
      return true;
    };
    const fail = (error: unknown) => {
      if (release()) reportStepError(stream, error, context, to);
    };
    const id = expectCompletion((status) => {
      if (status !== 0) {
        if (release()) reportStepError(stream, stream.statusError(status), context, to);
        return;
      }
      let result: unknown;
      try {
        result = run();
        if (isThenable(result)) {
          if (timeout !== undefined) timer = stepTimers.start(stream, timeout, () => fail(new HostStepTimeoutError(context.name, timeout)));
          result.then(release, fail);
        } else release();
      } catch (error) {
        fail(error);
      }
    });
    notifyRefusingCapture(stream, id);
    return (r) => {
      if (settled) r();
      else resume = r;
    };
  };
}

/** @internal How a {@link doneStep} learns that the work before it has finished: it calls `settle`. */
export type DoneWatch = (settle: (status: number, error?: unknown) => void) => void;

/**
 * @internal The stream's notification as a {@link DoneWatch}: its callback on the stream, or with
 * `offStream` on the stream's notifier (see native notify()).
 */
export function notified(stream: Stream, offStream = false): DoneWatch {
  return (settle) => notifyRefusingCapture(stream, expectCompletion(settle), offStream);
}

/**
 * @internal See {@link Stream.onDone}: a notification whose failures are reported like a step's
 * (by `name`, the callback's), enqueued through `watch` when the command runs.
 */
export function doneStep(stream: Stream, fn: (error: CudaError | undefined) => unknown, watch: DoneWatch, name = nameOf(fn)): Command {
  return () => {
    const to = route;
    const report = (error: unknown) => reportStepError(stream, error, { kind: 'onDone', name }, to);
    watch((status, error) => {
      try {
        const result = fn(status === 0 ? undefined : ((error as CudaError | undefined) ?? stream.statusError(status)));
        if (isThenable(result)) result.then(undefined, report);
      } catch (error) {
        report(error);
      }
    });
  };
}

/**
 * @internal A notification command: `done(status)` on the main thread once the work before it has
 * finished. A failed enqueue settles it at once with the error (status -1), so nothing waits for
 * a notification that was never enqueued.
 */
export function notification(stream: Stream, done: (status: number, error?: unknown) => void): Command {
  return () => {
    const id = reserveCompletion(); // its handler is set after the enqueue, which then comes sooner
    try {
      stream.native.notify(id, 0);
    } catch (error) {
      cancelCompletion(id);
      stream.device.recordFailure(error);
      done(-1, error);
      return;
    }
    onCompletion(id, (status) => done(status, status === 0 ? undefined : stream.statusError(status)));
  };
}
