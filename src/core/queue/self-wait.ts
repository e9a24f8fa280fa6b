// Self-waits: a host step holds its stream until it settles, so a wait it makes for its own
// stream (synchronized(), flushed(), onDone()) or for an event recorded behind it can only end
// once the step has settled. A step that awaits one waits forever. What can be told cheaply is
// refused at once with a DeadlockError:
// - a wait made while the step's synchronous part runs, when the step turns out async (it returns
//   a Promise): promise waits are rejected as soon as it returns; onDone() throws at once when
//   the step is an async function;
// - a wait made after the step's first await, told by the async stack: the step's Promise is
//   awaited through a function of a name of its own, which the stack of every continuation
//   inside the step shows (one stack capture, only while a step of that stream is pending).
// Not told: a step that waits through another stream (one made to wait for an event behind the
// step), two steps of two streams waiting for each other, a wait inside a thenable that is not a
// Promise, and onDone() from a plain function that returns a Promise.
import { RxcudaError } from '../base/errors.js';
import { isThenable } from '../base/thenable.js';
import type { StreamEngine } from './stream-engine.js';

/**
 * A host step waited for a completion that can only come once the step has settled: its own
 * stream's `synchronized()`, `flushed()` or `onDone()`, or an event recorded behind it. The wait
 * would never end, so it was refused at once; `wait` says which. `code` is undefined.
 *
 * @example
 * stream.hostLaunch(async () => {
 *   await stream.synchronized(); // rejects with a DeadlockError: the stream waits for this step
 * });
 * stream.on('error', (error) => {
 *   if (error instanceof DeadlockError) console.error(`${error.step}: ${error.wait} would never end`);
 * });
 */
export class DeadlockError extends RxcudaError {
  /** The class's name, `DeadlockError`. */
  override readonly name = 'DeadlockError';
  declare readonly code: undefined;
  /** The wait that would never end, e.g. `stream.synchronized()`. */
  readonly wait: string;
  /** The host step that made it, by name (a kernel's, for a CPU implementation). */
  readonly step: string;

  /**
   * @param wait the wait, e.g. `stream.synchronized()`.
   * @param step the host step's name.
   */
  constructor(wait: string, step: string) {
    super(
      `${wait} in the host step ${step} would never end: it completes only once the step has settled, and the step waits for it. ` +
        'Wait after the step instead (enqueue the step, then wait), or let the step go on without waiting.',
    );
    this.wait = wait;
    this.step = step;
  }
}

/** A host step while it holds its lane. */
interface HeldStep {
  readonly lane: StreamEngine;
  readonly name: string;
  /** Its function, when it is an `async function` (told before it returns). */
  readonly async: boolean;
  /** The name of the function its Promise is awaited through, once it returned one. */
  frame: string | undefined;
  /** The promise waits its synchronous part made for its lane, and their rejections. */
  readonly waits: { readonly wait: string; readonly reject: (error: DeadlockError) => void }[];
}

/** The step whose synchronous part runs now. */
let running: HeldStep | undefined;
/** The pending async step that holds each lane. */
const pending = new WeakMap<StreamEngine, HeldStep>();
let frames = 0;

const AsyncFunction = (async () => {}).constructor;

/**
 * Runs `run`, the synchronous part of a host step named `name` that holds `lane` (of the user's
 * function `fn`, when there is one), and returns what it returned: a Promise it returned is
 * awaited through a function named for the step, so that waits made after its awaits are told.
 * `letGo` must be called once the step no longer holds the lane.
 */
export function runHeldStep(lane: StreamEngine, name: string, fn: unknown, run: () => unknown): { result: unknown; letGo: () => void } {
  const outer = running;
  const step: HeldStep = { lane, name, async: fn instanceof AsyncFunction, frame: undefined, waits: [] };
  running = step;
  let result: unknown;
  try {
    result = run();
  } finally {
    running = outer;
  }
  if (!isThenable(result)) return { result, letGo: () => {} };
  for (const { wait, reject } of step.waits.splice(0)) reject(new DeadlockError(wait, name));
  const frame = (step.frame = `rxcudaHostStep${++frames}`);
  const awaited = { [frame]: async (value: PromiseLike<unknown>) => await value }[frame]!;
  // Its `then` called as a step's has always been: once, here (a throw of it rejects).
  const settled = new Promise((resolve, reject) => void result.then(resolve, reject));
  pending.set(lane, step);
  return {
    result: awaited(settled),
    letGo: () => {
      if (pending.get(lane) === step) pending.delete(lane);
    },
  };
}

/** The DeadlockError for `wait` on `lane`, made now by the step that holds it, or undefined. */
function verdict(lane: StreamEngine, wait: string, deferred: boolean): DeadlockError | undefined {
  const step = running?.lane === lane ? running : pending.get(lane);
  if (!step) return undefined;
  if (step === running) return !deferred && step.async ? new DeadlockError(wait, step.name) : undefined;
  return step.frame !== undefined && awaitedThrough(step.frame) ? new DeadlockError(wait, step.name) : undefined;
}

/**
 * `make()`, the promise of a wait (`wait`, e.g. `stream.synchronized()`) for the work given to
 * `lane`, unless a host step holding `lane` makes it and would wait for it forever: then a promise
 * rejected with a DeadlockError, and nothing made (or, made in the step's synchronous part, a
 * promise rejected as soon as the step returns a Promise).
 */
export function guardedWait<T>(lane: StreamEngine | undefined, wait: string, make: () => Promise<T>): Promise<T> {
  if (lane === undefined || (running === undefined && !pending.has(lane))) return make();
  const refused = verdict(lane, wait, true);
  if (refused) return Promise.reject(refused);
  const made = make();
  const step = running;
  if (step?.lane !== lane) return made;
  return new Promise<T>((resolve, reject) => {
    step.waits.push({ wait, reject });
    made.then(resolve, reject);
  });
}

/**
 * Throws the DeadlockError for a callback wait (`onDone`) on `lane` that a host step holding it
 * makes and would wait for forever, as far as it can be told now.
 */
export function checkNotSelfWait(lane: StreamEngine, wait: string): void {
  if (running === undefined && !pending.has(lane)) return;
  const refused = verdict(lane, wait, false);
  if (refused) throw refused;
}

/** Whether the current code runs in the async call chain that the function named `frame` awaits. */
function awaitedThrough(frame: string): boolean {
  const { stackTraceLimit, prepareStackTrace } = Error;
  try {
    Error.stackTraceLimit = 200;
    Error.prepareStackTrace = (_, sites) => sites;
    const holder: { stack?: NodeJS.CallSite[] } = {};
    Error.captureStackTrace(holder);
    return (holder.stack ?? []).some((site) => site.getFunctionName() === frame);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
    Error.prepareStackTrace = prepareStackTrace;
  }
}
