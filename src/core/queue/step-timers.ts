// The timers of running steps that have a timeout, per lane, so that closing the stream can let
// them go: a closed stream's step does not keep the process alive.
import type { StreamEngine } from './stream-engine.js';

const running = new WeakMap<StreamEngine, Set<NodeJS.Timeout>>();

/** Starts a step's timeout timer (unreferenced at once on a closed lane). */
export function startStepTimer(lane: StreamEngine, timeout: number, expire: () => void): NodeJS.Timeout {
  const timer = setTimeout(expire, timeout);
  if (lane.closed) timer.unref();
  else {
    let timers = running.get(lane);
    if (!timers) running.set(lane, (timers = new Set()));
    timers.add(timer);
  }
  return timer;
}

/** Stops a step's timer: the step settled. */
export function stopStepTimer(lane: StreamEngine, timer: NodeJS.Timeout): void {
  clearTimeout(timer);
  running.get(lane)?.delete(timer);
}

/** At `close()`: the timeouts of the lane's running steps no longer hold the process. */
export function letStepTimersGo(lane: StreamEngine): void {
  const timers = running.get(lane);
  if (!timers) return;
  for (const timer of timers) timer.unref();
  running.delete(lane);
}
