// JavaScript in a stream's order: host steps, which hold the stream until they settle, and
// completion callbacks, which do not.
import { nameOf, typeError, type CudaError } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import { checkNotCapturing, hostStep, onDoneCommand, valueNotification, type CompletionWatch, type ValueWaiter } from '../queue/host-steps.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import { checkNotSelfWait } from '../queue/self-wait.js';
import { HOST_LAUNCH_OPTIONS, checkTimeout, copyUserData, type HostLaunchOptions, type UserData } from '../queue/user-data.js';
import type { Recorder } from './recorder.js';
import type { ValueWatches } from './value-watches.js';

export { ValueWatches } from './value-watches.js';

/** See {@link Stream.hostLaunch}. */
export function hostLaunchOn<D extends UserData>(lane: StreamEngine<Recorder>, fn: (userData: D | undefined) => unknown, options: HostLaunchOptions<D>): void {
  if (typeof fn !== 'function') typeError('fn', 'a function', fn);
  checkOptions('options', options, HOST_LAUNCH_OPTIONS);
  const data = copyUserData(options.userData);
  const timeout = checkTimeout(options.timeout);
  lane.checkOpen();
  if (lane.recorder?.step(() => fn(data), nameOf(fn), timeout)) return;
  // A queued step's notification is enqueued later: refuse it now, while the caller hears it.
  if (!lane.unqueued) checkNotCapturing(lane, 'cuStreamAddCallback');
  lane.run(hostStep(lane, () => fn(data), { kind: 'hostLaunch', name: nameOf(fn) }, timeout, fn));
}

/**
 * See {@link Stream.onDone}: `fn` once the work given so far has finished, learnt through
 * `watch`; `reached(mark)` tells the stream that it got to its command number `mark`. With
 * `wait` (the user's call, as its errors name it), refused when a host step of the lane makes
 * it and would wait for it forever.
 */
export function onDoneOn(
  lane: StreamEngine<Recorder>,
  fn: (error: CudaError | undefined) => unknown,
  watch: CompletionWatch,
  reached: (mark: number) => void,
  wait?: string,
): void {
  lane.checkOpen();
  if (wait !== undefined) checkNotSelfWait(lane, wait);
  lane.recorder?.interrupt('onDone (a wait for the stream)');
  if (!lane.unqueued) checkNotCapturing(lane, 'cuStreamAddCallback');
  const mark = lane.given + 1;
  lane.run(onDoneCommand(lane, (error) => {
    if (!error) reached(mark);
    return fn(error);
  }, watch, nameOf(fn)));
}

/** {@link onDoneOn}'s checks for a pipeline value's completion point, whose driver call is `call`. */
function checkValueWait(lane: StreamEngine<Recorder>, call: string): void {
  lane.checkOpen();
  lane.recorder?.interrupt('onDone (a wait for the stream)');
  if (!lane.unqueued) checkNotCapturing(lane, call);
}

/** See {@link Stream.afterValue} with `spin` on a CUDA stream: the checks, then the value's watch. */
export function valueWatchOn(lane: StreamEngine<Recorder>, watches: ValueWatches, waiter: ValueWaiter, spin: number): void {
  checkValueWait(lane, 'cuEventRecord');
  watches.watch(waiter, spin);
}

/** See {@link Stream.afterValue} without `spin`: the checks, then the lane's value notification. */
export function valueDoneOn(lane: StreamEngine<Recorder>, waiter: ValueWaiter, reached: (mark: number) => void): void {
  checkValueWait(lane, 'cuStreamAddCallback');
  valueNotification(lane, waiter, reached);
}
