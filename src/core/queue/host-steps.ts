// Host steps and completion callbacks: JavaScript placed in a stream's order. The stream reaches a
// notification, the completion queue runs the JavaScript on the main thread; a step also holds the
// lane, so that the device work given after it waits in the lane's queue (scheduler.ts) until it
// settles: the device never waits for it.
import { CudaError, HostStepTimeoutError, nameOf } from '../base/errors.js';
import { cancelCompletion, expectCompletion, expectCompletionWith, onCompletion, reserveCompletion } from '../native/completions.js';
import { NOTIFY_OFF_STREAM, NOTIFY_REFUSE_CAPTURE } from '../native/types.js';
import { isThenable } from '../base/thenable.js';
import { failureScope, reportFailure, type FailureRoute, type HostStepContext } from './failure-route.js';
import type { StreamEngine } from './stream-engine.js';
import { settling, type Command, type Pause, type Resume } from './scheduler.js';
import { runHeldStep } from './self-wait.js';
import { startStepTimer, stopStepTimer } from './step-timers.js';

/** The error for a host step or notification refused on a stream under graph capture. */
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

/** Refuses host steps while other code captures the stream, before anything reaches the driver. */
export function checkNotCapturing(lane: StreamEngine, call: string): void {
  if (lane.native.capturing()) throw captureRefused(call);
}

/** A native call for completion `id` refused under graph capture (`call`'s): `id` is released, and the refusal thrown. */
export function refusedUnderCapture(id: number, call: string): never {
  cancelCompletion(id);
  throw captureRefused(call);
}

/** Enqueues the notification for `id` (refused under graph capture: nothing enqueued, and the refusal thrown). */
export function notifyRefusingCapture(lane: StreamEngine, id: number, offStream = false): void {
  let enqueued: boolean;
  try {
    enqueued = lane.native.notify(id, NOTIFY_REFUSE_CAPTURE | (offStream ? NOTIFY_OFF_STREAM : 0));
  } catch (error) {
    cancelCompletion(id);
    throw error;
  }
  if (!enqueued) refusedUnderCapture(id, 'cuStreamAddCallback');
}

/**
 * The command of a host step: it enqueues the step's notification and pauses the lane's queue
 * until the step has run and settled (its Promise, for an async step). The queue goes on before
 * the failure of a step is reported, so that a report that fails holds nothing. `fn` is the
 * user's function that `run` calls, when there is one (see self-wait.ts).
 */
export function hostStep(lane: StreamEngine, run: () => unknown, context: HostStepContext, timeout?: number, fn?: unknown): Command {
  return (): Pause => {
    const to = failureScope.current();
    let resume: Resume | undefined;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let letGo: (() => void) | undefined;
    const release = () => {
      if (settled) return false;
      settled = true;
      letGo?.();
      if (timer) stopStepTimer(lane, timer);
      resume?.();
      return true;
    };
    const fail = (error: unknown) => {
      if (release()) reportFailure(lane.listeners, error, context, to);
    };
    const id = expectCompletion((status) => {
      if (status !== 0) {
        if (release()) reportFailure(lane.listeners, lane.statusError(status), context, to);
        return;
      }
      try {
        const held = runHeldStep(lane, context.name, fn, run);
        letGo = held.letGo;
        const result = held.result;
        if (isThenable(result)) {
          if (timeout !== undefined) timer = startStepTimer(lane, timeout, () => fail(new HostStepTimeoutError(context.name, timeout)));
          result.then(release, fail);
        } else release();
      } catch (error) {
        fail(error);
      }
    });
    notifyRefusingCapture(lane, id);
    return (r) => {
      if (settled) r();
      else resume = r;
    };
  };
}

/** How a completion callback learns that the work before it has finished: it calls `settle`. */
export type CompletionWatch = (settle: (status: number, error?: unknown) => void) => void;

/**
 * The lane's notification as a {@link CompletionWatch}: its callback on the stream, or with
 * `offStream` on the stream's notifier stream, behind an event (see native notify()).
 */
export function watchByNotification(lane: StreamEngine, offStream = false): CompletionWatch {
  return (settle) => notifyRefusingCapture(lane, expectCompletion(settle), offStream);
}

/**
 * See {@link Stream.onDone}: `fn` once the work before it has finished, its failures reported as
 * a step's are (by `name`, the callback's), watched through `watch` when the command runs.
 */
export function onDoneCommand(lane: StreamEngine, fn: (error: CudaError | undefined) => unknown, watch: CompletionWatch, name = nameOf(fn)): Command {
  const call = (status: number, error: unknown, to: FailureRoute | undefined) => {
    const report = (error: unknown) => reportFailure(lane.listeners, error, { kind: 'onDone', name }, to);
    try {
      const result = fn(status === 0 ? undefined : ((error as CudaError | undefined) ?? lane.statusError(status)));
      if (isThenable(result)) result.then(undefined, report);
    } catch (error) {
      report(error);
    }
  };
  return settling(() => {
    const to = failureScope.current();
    watch((status, error) => call(status, error, to));
  }, (error) => call(-1, error, failureScope.current()));
}

/** What waits for a pipeline value's completion (its Work envelope): see {@link valueNotification}. */
export interface ValueWaiter {
  /**
   * Called once the work before the notification has finished, with the CudaError that stopped
   * the stream, if one did. It handles its own failures (what it throws reaches the stream's
   * `error` listeners, as a failed step's error does).
   */
  valueDone(error: CudaError | undefined): void;
}

/**
 * A pipeline value's completion: `waiter.valueDone(error)` once the work given to `lane` so far
 * has finished, learnt through the lane's notification on its notifier stream (see native
 * notify()), with `reached(mark)` first when the work succeeded. {@link onDoneCommand} without a
 * closure made per call (a pipeline's every value takes one): one handler per lane serves them
 * all, each with its waiter and mark.
 */
export function valueNotification(lane: StreamEngine, waiter: ValueWaiter, reached: (mark: number) => void): void {
  lane.valueHandler ??= (status: number, waiting: ValueWaiter, mark: number) =>
    settleValue(lane, waiting, status === 0 ? undefined : lane.statusError(status), mark, reached);
  lane.valueCompletions.notified++;
  lane.runWith(notifyValue, waiter, lane.given + 1, valueDropped);
}

/**
 * Settles a pipeline value whose work before its completion point has finished (with `error`, the
 * CudaError that stopped it): `reached(mark)` first when it succeeded, then `waiter.valueDone`.
 * Each call apart, its failures reported as a step's are: a listener of the stream's `idle` that
 * throws does not keep the value.
 */
export function settleValue(lane: StreamEngine, waiter: ValueWaiter, error: CudaError | undefined, mark: number, reached: (mark: number) => void): void {
  try {
    if (!error) reached(mark);
  } catch (thrown) {
    reportFailure(lane.listeners, thrown, { kind: 'onDone', name: 'idle' });
  }
  try {
    waiter.valueDone(error);
  } catch (thrown) {
    reportFailure(lane.listeners, thrown, { kind: 'onDone', name: 'valueDone' });
  }
}

/** A value's notification dropped by its broken lane: the value settles with the device's error. */
function valueDropped(lane: StreamEngine, waiter: ValueWaiter, mark: number, error: unknown): void {
  settleValue(lane, waiter, error as CudaError, mark, () => {});
}

/** A value's notification as {@link valueNotification} enqueues it. */
function notifyValue(lane: StreamEngine, waiter: ValueWaiter, mark: number): void {
  const handler = lane.valueHandler as (status: number, waiter: ValueWaiter, mark: number) => void;
  notifyRefusingCapture(lane, expectCompletionWith(handler, waiter, mark), true);
}

/**
 * A command that calls `done(status)` on the main thread once the work before it has finished.
 * A failed enqueue settles it at once with the error (status -1), so nothing waits for a
 * notification that was never enqueued.
 */
export function completionCommand(lane: StreamEngine, done: (status: number, error?: unknown) => void): Command {
  return settling(() => {
    const id = reserveCompletion(); // its handler is set after the enqueue, which then comes sooner
    try {
      lane.native.notify(id, 0);
    } catch (error) {
      cancelCompletion(id);
      lane.faults.record(error);
      done(-1, error);
      return;
    }
    onCompletion(id, (status) => done(status, status === 0 ? undefined : lane.statusError(status)));
  }, (error) => done(-1, error));
}
