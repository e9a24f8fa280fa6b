// A stream engine: one stream's work as the queue sees it. It owns the native stream, the
// scheduler's queue in front of it, the count of what it was given, and the recorder its work goes
// into while it captures. Everything below the public Stream (memory, host steps, completion
// points, kernels' launches) works on engines, so that Stream itself stays the public face.
import { ArgumentTypeError, CudaError } from '../base/errors.js';
import { addon } from '../native/addon.js';
import { NOTIFY_REFUSE_CAPTURE, type NativeStream } from '../native/types.js';
import type { Faults } from './faults.js';
import { reportFailure, routedCommand, type ErrorListeners } from './failure-route.js';
import { StreamQueue, settling, type Command, type Pause } from './scheduler.js';
import { cancelCompletion, expectCompletion } from '../native/completions.js';
import { laneFailures } from './submit-failures.js';

/** What a lane hands its work to while it records (a capture, or a replayed value's recording). */
export interface EngineRecorder {
  /** Called before each of rxcuda's own commands (a free, a completion point) goes to the lane. */
  beforeRun(): void;
}

/** A point in a lane's work that other lanes can wait for (an event's latest record). */
export interface EngineMark {
  /** The command that makes `lane` wait for this point; `onFailure` hears a wait that failed later. */
  waitCommand(lane: StreamEngine, onFailure: (error: unknown) => void): Command;
  /** Whether the work before this point has completed, asked now (true on a broken device). */
  reached(): boolean;
}

/** Lanes made so far in this environment: each lane's `id`. */
let lanesMade = 0;

/** An event as lanes use it among themselves: recorded on one lane, waited for by others. */
export interface EngineEvent extends EngineMark {
  /** The command that records the event on `lane`. */
  recordCommand(lane: StreamEngine): Command;
  close(): void;
}

/** One stream's work: its native stream and the queue of what may not reach the driver yet. */
export class StreamEngine<R extends EngineRecorder = EngineRecorder> {
  /** Unique among the lanes of this environment, never reused: what a launch block compares. */
  readonly id = ++lanesMade;
  readonly native: NativeStream;
  /** The CUstream handle, and its low and high 32 bits (written into each launch's header). */
  readonly handle: bigint;
  readonly lo: number;
  readonly hi: number;
  /** The device's sticky error, which every lane of the device shares. */
  readonly faults: Faults;
  /** Where failures nobody waits for are reported: the stream's `error` listeners. */
  readonly listeners: ErrorListeners;
  /** What the lane's work goes into instead of the driver, while it records. */
  recorder: R | undefined;
  /** @internal The completion handler of the lane's value notifications (host-steps.ts), made once. */
  valueHandler: ((status: number, waiter: never, mark: number) => void) | undefined;
  /**
   * @internal Pipeline values whose completion was given to the native watcher, those notified by
   * a host callback, and watches that gave up (device/value-watches.ts, host-steps.ts).
   */
  readonly valueCompletions = { watched: 0, notified: 0, gaveUp: 0 };
  /** Recorded last of all when the stream closed: what completion points behind it wait for. */
  #tail: EngineMark | undefined;
  readonly #queue: StreamQueue;
  #given = 0;
  #reached = 0;
  /** The sticky error that broke the lane's device, once it has. */
  #broken: CudaError | undefined;
  /** What to call once the lane has closed and its work is done (see whenDrained). */
  #whenDrainedCalls: (() => void)[] | undefined;
  /** The failed submission that stopped the stream's work, once one has (submitFailed). */
  #failure: CudaError | undefined;

  /**
   * @param foreign the native stream is other code's (Stream.fromHandle): work rxcuda did not give
   * it may be running, so only the driver can say that it is idle.
   */
  constructor(native: NativeStream, faults: Faults, listeners: ErrorListeners, readonly foreign = false) {
    this.native = native;
    this.handle = native.handle();
    this.lo = Number(this.handle & 0xffff_ffffn);
    this.hi = Number(this.handle >> 32n);
    this.faults = faults;
    this.listeners = listeners;
    this.#queue = new StreamQueue((error) => this.queuedFailure(error), () => faults.queued(this), () => faults.emptied(this));
    laneFailures.track(this);
  }

  /** True once the stream closed: nothing more can be given to it. */
  get closed(): boolean {
    return this.#tail !== undefined;
  }

  /** The mark recorded last of all at close, or undefined while the stream is open. */
  get tail(): EngineMark | undefined {
    return this.#tail;
  }

  /** True once the stream closed and all its work has completed (the driver is asked now). */
  get drained(): boolean {
    return this.#tail !== undefined && this.#tail.reached();
  }

  /**
   * Calls `forget` once the stream has closed and all its work has completed: holders of lanes
   * that outlive them (modules) release the lane then. The lane must still be open.
   */
  whenDrained(forget: () => void): void {
    (this.#whenDrainedCalls ??= []).push(forget);
  }

  /** Whether work given now is submitted to the driver at once: nothing queued or paused, no recorder. */
  get immediate(): boolean {
    return this.recorder === undefined && this.#queue.direct;
  }

  /** Whether the queue holds nothing (a recorder aside). */
  get unqueued(): boolean {
    return this.#queue.direct;
  }

  /** Commands ever given: unchanged between two moments means nothing was given in between. */
  get given(): number {
    return this.#given;
  }

  /**
   * The command count at the latest completion point known reached (its work all completed, seen on
   * the main thread): while nothing is given past it, the lane is idle, whatever the driver says
   * while its own callback for that point is still returning.
   */
  get lastReached(): number {
    return this.#reached;
  }

  /** A completion point given as command number `mark` was reached. */
  noteReached(mark: number): void {
    if (mark > this.#reached) this.#reached = mark;
  }

  /** Counts a launch that went straight to the driver without {@link run} (the launch fast path). */
  noteSubmitted(): void {
    this.#given++;
  }

  /** Throws unless work can be given to the lane: its stream open, its device not broken. */
  checkOpen(): void {
    if (this.#tail) throw new ArgumentTypeError('Expected `stream` to be open, got a closed Stream');
    this.faults.check();
    if (this.#failure) throw this.#failure;
  }

  /**
   * A command given to the stream failed when its device thread submitted it: nothing given to
   * the stream after it runs (its completion points settle with this error), and what is given
   * from now on is refused with it. Reported once, to the stream's `error` listeners.
   */
  submitFailed(error: CudaError): void {
    if (this.#failure) return;
    this.#failure = error;
    this.queuedFailure(error);
  }

  /**
   * Gives `command` to the queue: submitted now when nothing waits there (a driver failure then
   * reaches the caller, sticky ones recorded on the device), else in turn.
   */
  run(command: Command): void {
    this.recorder?.beforeRun();
    this.#given++;
    // A broken lane settles what would wait for nothing (see break()).
    if (this.#broken !== undefined && command.dropped) return command.dropped(this.#broken);
    try {
      this.#queue.run(this.#queue.direct ? command : routedCommand(this.faults, command));
    } catch (error) {
      this.faults.fail(error);
    }
  }

  /**
   * {@link run} for the command `fn(lane, a, b)`: called at once, without a closure made for it,
   * when nothing is queued (rxcuda's per-value commands take this path); else queued as `run`
   * queues. `dropped(lane, a, b, error)` settles what waits for it when the lane breaks before it
   * runs (a command's `dropped`).
   */
  runWith<A, B>(fn: (lane: this, a: A, b: B) => Pause | void, a: A, b: B, dropped?: (lane: this, a: A, b: B, error: unknown) => void): void {
    this.recorder?.beforeRun();
    this.#given++;
    if (this.#broken !== undefined && dropped) return dropped(this, a, b, this.#broken);
    try {
      if (!this.#queue.direct) return this.#queue.run(routedCommand(this.faults, commandWith(this, fn, a, b, dropped)));
      const pause = fn(this, a, b);
      if (pause) this.#queue.pause(pause);
    } catch (error) {
      this.faults.fail(error);
    }
  }

  /** Holds back the lane's later work until `pause` resumes it (a CPU kernel's step). */
  pause(pause: Pause): void {
    this.recorder?.beforeRun();
    this.#queue.pause(pause);
  }

  /**
   * Resolves once nothing waits in the queue (see Stream.flushed), and everything given before
   * has gone past the stream's device thread too: it is in the driver's hands.
   */
  async flushed(): Promise<void> {
    await this.#queue.flushed();
    if (this.#broken || this.#failure) return;
    await new Promise<void>((resolve) => {
      const id = expectCompletion(() => resolve());
      let taken = false;
      try {
        taken = this.native.flushMark(id);
      } finally {
        if (!taken) {
          cancelCompletion(id);
          resolve();
        }
      }
    });
  }

  /**
   * Closes the lane: `tail` is recorded behind everything given so far, then `last` runs (the
   * native stream's destroy). A broken context runs nothing more, and is not told.
   */
  close(tail: EngineEvent, last: () => void): void {
    this.#tail = tail;
    const whenDrainedCalls = this.#whenDrainedCalls;
    this.#whenDrainedCalls = undefined;
    try {
      this.#queue.run(tail.recordCommand(this));
      if (whenDrainedCalls) this.#queue.run(drainedCommand(this.native, whenDrainedCalls));
      this.#queue.run(last);
    } catch {
      // A broken context (a sticky error): nothing runs on it any more anyway.
      if (whenDrainedCalls) for (const forget of whenDrainedCalls) forget();
    }
  }

  /**
   * The lane's device broke: its queued work is dropped, and what waits for it (completion points,
   * `onDone` callbacks, spinning waits) settles with `error` at once, whatever holds the queue (a
   * step that never settles, a record queued on another stream). The step holding it is left to
   * finish on its own. Called by its device's {@link Faults}, once.
   */
  break(error: CudaError): void {
    if (this.#broken) return;
    this.#broken = error;
    this.#queue.drop(error);
  }

  /** The CudaError for a failed stream status (the device's sticky error if it is one). */
  statusError(status: number): CudaError {
    const sticky = this.faults.poisoned;
    if (sticky && sticky.code === status) return sticky;
    const { name, message } = addon.describeError(status);
    const error = new CudaError(status, name, 'stream', `work enqueued on the stream failed: ${name} (${message})`);
    this.faults.record(error);
    return error;
  }

  /** A queued command failed when it went to the driver: its caller has returned long since. */
  queuedFailure(error: unknown): void {
    const broken = this.faults.poisoned;
    this.faults.record(error);
    // Once the context is broken, every queued command fails with its error: say it once.
    if (broken && error instanceof CudaError && error.code === broken.code) return;
    reportFailure(this.listeners, error, { kind: 'enqueue', name: error instanceof CudaError ? error.call : 'enqueue' });
  }
}

/**
 * The command, given last of all at close, that calls each of `calls` once everything the lane
 * was given has completed (whatever the status: a failed stream runs nothing more either), or at
 * once should the lane break first.
 */
function drainedCommand(native: NativeStream, calls: readonly (() => void)[]): Command {
  const forget = () => {
    for (const call of calls) call();
  };
  return settling(() => {
    const id = expectCompletion(forget);
    let enqueued = false;
    try {
      // Never on a stream that other code captures: the callback would invalidate its capture.
      enqueued = native.notify(id, NOTIFY_REFUSE_CAPTURE);
    } catch {
      // A broken context: nothing more runs on it.
    }
    if (enqueued) return;
    cancelCompletion(id);
    forget();
  }, forget);
}

/**
 * The command `fn(lane, a, b)` of {@link StreamEngine.runWith}, made only when it must wait in the queue:
 * a function of its own, so that runWith's direct path allocates no context for these closures.
 */
function commandWith<L, A, B>(lane: L, fn: (lane: L, a: A, b: B) => Pause | void, a: A, b: B, dropped?: (lane: L, a: A, b: B, error: unknown) => void): Command {
  const command: Command = () => fn(lane, a, b);
  if (dropped) command.dropped = (error) => dropped(lane, a, b, error);
  return command;
}
