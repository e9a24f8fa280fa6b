// Events: points in a stream's work, for cross-stream ordering, completion and timing. A record
// may still wait in its stream's queue (behind an unsettled host step); a wait for it then waits in
// its own stream's queue until the record reaches the driver (see scheduler.ts).
import { DISABLE_TIMING, type NativeEvent } from '../native/types.js';
import { BRAND, CudaError, isInstance, rangeError, typeError, received } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import { guardedWait } from '../queue/self-wait.js';
import type { Recorder } from './recorder.js';
import { settling, type Command, type Pause } from '../queue/scheduler.js';
import type { Device } from './device.js';
import type { Stream } from './stream.js';
import { MADE, checkMade, type Made } from '../base/made.js';

/** Options for {@link Stream.record} and {@link Device.createEvent}. */
export interface EventOptions {
  /**
   * Whether the event records a timestamp, for {@link Event.elapsedSince}. Untimed events are
   * cheaper to record and to wait for.
   * @default false
   */
  readonly timing?: boolean;
}

/**
 * One native event and the queued commands that use it. A record that finds the current native
 * event still used by a queued record or wait gets a new one, so that every wait refers to the
 * record that was latest when it was made, as with CUDA's own events.
 */
class NativeSlot {
  /** Queued records and waits using it, plus one while it is the event's current slot. */
  users = 1;
  /** Records of it still queued. */
  unrecorded = 0;
  /** The lane of its latest record. */
  lane: StreamEngine | undefined;
  /** What runs once its last queued record has reached the driver. */
  recorded: (() => void)[] = [];

  constructor(readonly native: NativeEvent) {}
}

/** A point in a stream's work. Record one with {@link Stream.record}. */
export class Event {
  /** The device the event belongs to. */
  readonly device: Device;
  /** Whether the event records timestamps. */
  readonly timing: boolean;
  #slot: NativeSlot;
  #recorded: Stream | undefined;
  /** Recorded at least once: by a stream, one of rxcuda's own lanes, or a graph's record node. */
  #everRecorded = false;
  #closed = false;
  /** @internal Whether `value` is one itself, not a Proxy of one (errors.ts). */
  static readonly [BRAND] = (value: object): boolean => #slot in value;

  private constructor(made: Made, device: Device, timing: boolean) {
    checkMade(made, 'an Event', 'stream.record() or device.createEvent()');
    this.device = device;
    this.timing = timing;
    this.#slot = new NativeSlot(this.#newNative());
  }

  /** @internal Use {@link Stream.record} or {@link Device.createEvent}. */
  static create(device: Device, options: EventOptions = {}): Event {
    checkOptions('options', options, ['timing']);
    const { timing = false } = options;
    if (typeof timing !== 'boolean') typeError('timing', 'a boolean', timing);
    return new Event(MADE, device, timing);
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * The stream the event was last recorded on, if any.
   * @example
   * const done = stream.record();
   * console.log(done.recordedStream() === stream); // true
   */
  recordedStream(): Stream | undefined {
    return this.#recorded;
  }

  /** @internal Whether the latest record still waits in its stream's queue. */
  get pending(): boolean {
    return this.#slot.unrecorded > 0;
  }

  /**
   * @internal The command that records this event on `lane` (see {@link Stream.record}), the lane
   * of `stream` when a user's stream records it.
   */
  recordCommand(lane: StreamEngine, stream?: Stream): Command {
    let slot = this.#slot;
    if (slot.users > 1) {
      slot = new NativeSlot(this.#newNative());
      this.#release(this.#slot);
      this.#slot = slot;
    }
    slot.users++;
    slot.unrecorded++;
    slot.lane = lane;
    if (stream) this.#recorded = stream;
    this.#everRecorded = true;
    const reached = () => {
      if (--slot.unrecorded === 0) for (const then of slot.recorded.splice(0)) then();
      this.#release(slot);
    };
    // Dropped (its device broke): the waits for it go on, on any device, as after a record that
    // completed at once; what it would have followed never runs anyway.
    return settling(() => {
      try {
        lane.native.record(slot.native);
      } finally {
        reached();
      }
    }, reached);
  }

  /**
   * @internal The command that makes `lane` wait for this event's latest record: at once when
   * that record has reached the driver, else once it does (the lane's queue pauses meanwhile).
   */
  waitCommand(lane: StreamEngine, onFailure: (error: unknown) => void): Command {
    const slot = this.#slot;
    slot.users++;
    const submit = () => {
      try {
        lane.native.waitEvent(slot.native);
      } finally {
        this.#release(slot);
      }
    };
    return settling((): Pause | void => {
      if (slot.unrecorded === 0) return submit();
      return (resume) =>
        slot.recorded.push(() => {
          try {
            submit();
          } catch (error) {
            onFailure(error);
          }
          resume();
        });
    }, () => this.#release(slot));
  }

  /**
   * @internal The native event that records and waits made now use, kept (past `close()` too)
   * until the returned function lets it go: what a graph's event node records or waits for.
   */
  holdNative(record: boolean): readonly [NativeEvent, () => void] {
    const slot = this.#slot;
    if (record) this.#everRecorded = true;
    slot.users++;
    let held = true;
    return [slot.native, () => {
      if (!held) return;
      held = false;
      this.#release(slot);
    }];
  }

  /** @internal {@link query} without its checks: true on a broken device, where nothing runs any more. */
  reached(): boolean {
    if (this.pending) return false;
    try {
      return this.#slot.native.query();
    } catch {
      return true;
    }
  }

  /**
   * True when the work before the event has completed; false while its record is queued. Never
   * waits.
   * @throws TypeError for a closed event or one never recorded; the device's sticky CudaError.
   * @example
   * const done = stream.record();
   * if (!done.query()) console.log('the work before it is still running');
   */
  query(): boolean {
    this.#check();
    if (this.pending) return false;
    try {
      return this.#slot.native.query();
    } catch (error) {
      this.device.engine.fail(error);
    }
  }

  /**
   * Resolves when the work before the event has completed, woken by the driver (no polling, no
   * blocking), also when the record still waits in its stream's queue. Work enqueued on the
   * event's stream after the event does not delay it, nor does any other completion point.
   * Never throws: the Promise rejects with a TypeError for a closed or never recorded event, the
   * CudaError that broke the device, or a DeadlockError when a host step of its stream waits for
   * it while the record is queued behind the step (see {@link DeadlockError}: it would never end).
   * @example
   * stream.launch(kernel, config, args);
   * const done = stream.record();
   * await done.completed(); // the kernel has finished; work enqueued later does not delay this
   */
  completed(): Promise<void> {
    let done: boolean;
    try {
      done = this.query(); // which checks the event first
    } catch (error) {
      return Promise.reject(error);
    }
    if (done) return Promise.resolve();
    // A record still queued behind a host step of its stream: that step must not wait for it.
    return guardedWait(this.pending ? this.#slot.lane : undefined, 'event.completed() (of an event recorded behind it)', () => new Promise((resolve, reject) =>
      this.device.engine.completionPoints.after([this], undefined, (status, error) => {
        if (status === 0) resolve();
        else reject(error);
      }),
    ));
  }

  /**
   * Milliseconds from `start` to this event, both recorded with `timing: true` and completed.
   * @throws TypeError when either event is untimed, unrecorded or closed; CudaError
   * (CUDA_ERROR_NOT_READY) when one has not completed yet, or its record still waits in its
   * stream's queue.
   * @example
   * const start = stream.record({ timing: true });
   * stream.launch(kernel, config, args);
   * const end = stream.record({ timing: true });
   * await end.completed();
   * console.log(`the kernel took ${end.elapsedSince(start).toFixed(3)} ms`);
   */
  elapsedSince(start: Event): number {
    if (!isInstance(start, Event)) typeError('start', 'an Event', start);
    if (start.device !== this.device) rangeError('start', `an event of ${this.device}`, start);
    for (const [name, event] of [['start', start], ['end', this]] as const) {
      event.#check(name);
      if (!event.timing) typeError(name, 'an event recorded with { timing: true }', received('an untimed Event'));
      if (event.pending)
        throw new CudaError(
          600,
          'CUDA_ERROR_NOT_READY',
          'cuEventElapsedTime',
          `\`${name}\` is not recorded yet: its record() waits in its stream's queue behind an unsettled host step. ` +
            'Await event.completed() first.',
        );
    }
    try {
      return start.#slot.native.elapsed(this.#slot.native);
    } catch (error) {
      this.device.engine.fail(error);
    }
  }

  /**
   * Releases the event. Idempotent; records and waits already enqueued (or queued) are unaffected.
   * @example
   * const done = stream.record();
   * other.wait(done);
   * done.close(); // the wait already enqueued still holds
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#release(this.#slot);
  }

  /**
   * The same as `close()`, for `using`.
   * @example
   * {
   *   using done = stream.record();
   *   other.wait(done);
   * } // closed here
   */
  [Symbol.dispose](): void {
    this.close();
  }

  #newNative(): NativeEvent {
    return new this.device.engine.backend.Event(this.device.engine.native, this.timing ? 0 : DISABLE_TIMING);
  }

  #release(slot: NativeSlot): void {
    if (--slot.users === 0) slot.native.destroy();
  }

  #check(name = 'event'): void {
    if (this.#closed) typeError(name, 'an open Event', received('a closed Event'));
    if (!this.#everRecorded) typeError(name, 'a recorded Event', received('an Event never recorded'));
    this.device.engine.checkUsable();
  }
}

/** See {@link Stream.record}: `by` is the lane's stream. */
export function recordOn(lane: StreamEngine<Recorder>, device: Device, options: EventOptions | Event | undefined, by: Stream): Event {
  const given = isInstance(options, Event) ? options : undefined;
  if (given) {
    if (given.closed) typeError('event', 'an open Event', received('a closed Event'));
    if (given.device !== device) rangeError('event', `an event of ${device}`, given);
  }
  lane.checkOpen();
  const event = given ?? Event.create(device, options as EventOptions | undefined);
  if (!lane.recorder?.record(event)) lane.run(event.recordCommand(lane, by));
  return event;
}

/** See {@link Stream.wait}. */
export function waitOn(lane: StreamEngine<Recorder>, device: Device, event: Event): void {
  if (!isInstance(event, Event)) typeError('event', 'an Event', event);
  if (event.device.engine.backend !== device.engine.backend) rangeError('event', `an event of a ${device.kind} device`, received(`an event of ${event.device}`));
  if (event.closed) typeError('event', 'an open Event', received('a closed Event'));
  lane.checkOpen();
  if (lane.recorder?.wait(event)) return;
  lane.run(event.waitCommand(lane, (error) => lane.queuedFailure(error)));
}
