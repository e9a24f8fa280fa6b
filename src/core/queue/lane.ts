// A lane: one stream's work as the queue sees it. It owns the native stream, the scheduler's queue
// in front of it, the count of what it was given, and the recorder its work goes into while it
// captures. Everything below the public Stream (memory, host steps, completion points, kernels'
// launches) works on lanes, so that Stream itself stays the public face.
import { CudaError } from '../base/errors.js';
import { addon } from '../native/addon.js';
import type { NativeStream } from '../native/types.js';
import type { Faults } from './faults.js';
import { reportFailure, routedCommand, type ErrorListeners } from './failure-route.js';
import { StreamQueue, type Command, type Pause } from './scheduler.js';

/** What a lane hands its work to while it records (a capture, or a replayed value's recording). */
export interface LaneRecorder {
  /** Called before each of rxcuda's own commands (a free, a completion point) goes to the lane. */
  beforeRun(): void;
}

/** A point in a lane's work that other lanes can wait for (an event's latest record). */
export interface LaneMark {
  /** The command that makes `lane` wait for this point; `onFailure` hears a wait that failed later. */
  waitCommand(lane: Lane, onFailure: (error: unknown) => void): Command;
}

/** An event as lanes use it among themselves: recorded on one lane, waited for by others. */
export interface LaneEvent extends LaneMark {
  /** The command that records the event on `lane`. */
  recordCommand(lane: Lane): Command;
  close(): void;
}

/** One stream's work: its native stream and the queue of what may not reach the driver yet. */
export class Lane<R extends LaneRecorder = LaneRecorder> {
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
  /** Recorded last of all when the stream closed: what completion points behind it wait for. */
  #tail: LaneMark | undefined;
  readonly #queue: StreamQueue;
  #given = 0;

  constructor(native: NativeStream, faults: Faults, listeners: ErrorListeners) {
    this.native = native;
    this.handle = native.handle();
    this.lo = Number(this.handle & 0xffff_ffffn);
    this.hi = Number(this.handle >> 32n);
    this.faults = faults;
    this.listeners = listeners;
    this.#queue = new StreamQueue((error) => this.queuedFailure(error));
  }

  /** True once the stream closed: nothing more can be given to it. */
  get closed(): boolean {
    return this.#tail !== undefined;
  }

  /** The mark recorded last of all at close, or undefined while the stream is open. */
  get tail(): LaneMark | undefined {
    return this.#tail;
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

  /** Counts a launch that went straight to the driver without {@link run} (the launch fast path). */
  noteSubmitted(): void {
    this.#given++;
  }

  /** Throws unless work can be given to the lane: its stream open, its device not broken. */
  checkOpen(): void {
    if (this.#tail) throw new TypeError('Expected `stream` to be open, got a closed Stream');
    this.faults.check();
  }

  /**
   * Gives `command` to the queue: submitted now when nothing waits there (a driver failure then
   * reaches the caller, sticky ones recorded on the device), else in turn.
   */
  run(command: Command): void {
    this.recorder?.beforeRun();
    this.#given++;
    try {
      this.#queue.run(this.#queue.direct ? command : routedCommand(this.faults, command));
    } catch (error) {
      this.faults.fail(error);
    }
  }

  /**
   * {@link run} for the command `fn(lane, a, b)`: called at once, without a closure made for it,
   * when nothing is queued (rxcuda's per-value commands take this road); else queued as `run`
   * queues.
   */
  runWith<A, B>(fn: (lane: this, a: A, b: B) => Pause | void, a: A, b: B): void {
    this.recorder?.beforeRun();
    this.#given++;
    try {
      if (!this.#queue.direct) return this.#queue.run(routedCommand(this.faults, () => fn(this, a, b)));
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

  /** Resolves once nothing waits in the queue (see Stream.flushed). */
  flushed(): Promise<void> {
    return this.#queue.flushed();
  }

  /**
   * Closes the lane: `tail` is recorded behind everything given so far, then `last` runs (the
   * native stream's destroy). A broken context runs nothing more, and is not told.
   */
  close(tail: LaneEvent, last: () => void): void {
    this.#tail = tail;
    try {
      this.#queue.run(tail.recordCommand(this));
      this.#queue.run(last);
    } catch {
      // A broken context (a sticky error): nothing runs on it any more anyway.
    }
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
