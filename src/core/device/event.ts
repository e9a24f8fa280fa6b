// Events: points in a stream's work, for cross-stream ordering, completion and timing. A record
// may still wait in its stream's queue (behind an unsettled host step); a wait for it then waits in
// its own stream's queue until the record reaches the driver (see scheduler.ts).
import type { NativeEvent } from '../native/types.js';
import { CudaError, checkOptions, isInstance, rangeError, typeError, received } from '../base/errors.js';
import type { Command, Pause } from '../queue/scheduler.js';
import type { Device } from './device.js';
import type { Stream } from './stream.js';

/** Options for {@link Stream.record} and {@link Device.createEvent}. */
export interface EventOptions {
  /**
   * Whether the event records a timestamp, for {@link Event.elapsedSince}. Untimed events are
   * cheaper to record and to wait for.
   * @default false
   */
  readonly timing?: boolean;
}

/** @internal CU_EVENT_DISABLE_TIMING. */
export const DISABLE_TIMING = 0x2;

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
  /** A graph's record node records it (its launches make it a recorded event). */
  #recordedByGraph = false;
  #closed = false;

  private constructor(device: Device, timing: boolean) {
    this.device = device;
    this.timing = timing;
    this.#slot = new NativeSlot(this.#newNative());
  }

  /** @internal Use {@link Stream.record} or {@link Device.createEvent}. */
  static create(device: Device, options: EventOptions = {}): Event {
    checkOptions('options', options);
    const { timing = false } = options;
    if (typeof timing !== 'boolean') typeError('timing', 'a boolean', timing);
    return new Event(device, timing);
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The stream the event was last recorded on, if any. */
  recordedStream(): Stream | undefined {
    return this.#recorded;
  }

  /** @internal Whether the latest record still waits in its stream's queue. */
  get pending(): boolean {
    return this.#slot.unrecorded > 0;
  }

  /** @internal The command that records this event on `stream` (see {@link Stream.record}). */
  recordCommand(stream: Stream): Command {
    let slot = this.#slot;
    if (slot.users > 1) {
      slot = new NativeSlot(this.#newNative());
      this.#release(this.#slot);
      this.#slot = slot;
    }
    slot.users++;
    slot.unrecorded++;
    this.#recorded = stream;
    return () => {
      try {
        stream.native.record(slot.native);
      } finally {
        if (--slot.unrecorded === 0) for (const then of slot.recorded.splice(0)) then();
        this.#release(slot);
      }
    };
  }

  /**
   * @internal The command that makes `stream` wait for this event's latest record: at once when
   * that record has reached the driver, else once it does (the stream's queue pauses meanwhile).
   */
  waitCommand(stream: Stream, onFailure: (error: unknown) => void): Command {
    const slot = this.#slot;
    slot.users++;
    const submit = () => {
      try {
        stream.native.waitEvent(slot.native);
      } finally {
        this.#release(slot);
      }
    };
    return (): Pause | void => {
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
    };
  }

  /**
   * @internal The native event that records and waits made now use, kept (past `close()` too)
   * until the returned function lets it go: what a graph's event node records or waits for.
   */
  holdNative(record: boolean): readonly [NativeEvent, () => void] {
    const slot = this.#slot;
    if (record) this.#recordedByGraph = true;
    slot.users++;
    let held = true;
    return [slot.native, () => {
      if (!held) return;
      held = false;
      this.#release(slot);
    }];
  }

  /**
   * True when the work before the event has completed; false while its record is queued. Never
   * waits.
   * @throws TypeError for a closed event or one never recorded; the device's sticky CudaError.
   */
  query(): boolean {
    this.#check();
    if (this.pending) return false;
    try {
      return this.#slot.native.query();
    } catch (error) {
      this.device.fail(error);
    }
  }

  /**
   * Resolves when the work before the event has completed, woken by the driver (no polling, no
   * blocking), also when the record still waits in its stream's queue. Work enqueued on the
   * event's stream after the event does not delay it, nor does any other completion point.
   * @throws TypeError (synchronously) for a closed or never recorded event.
   */
  completed(): Promise<void> {
    this.#check();
    if (this.query()) return Promise.resolve();
    return new Promise((resolve, reject) =>
      this.device.completionPoints.after([this], undefined, (status, error) => {
        if (status === 0) resolve();
        else reject(error);
      }),
    );
  }

  /**
   * Milliseconds from `start` to this event, both recorded with `timing: true` and completed.
   * @throws TypeError when either event is untimed, unrecorded or closed; CudaError
   * (CUDA_ERROR_NOT_READY) when one has not completed yet, or its record still waits in its
   * stream's queue.
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
      this.device.fail(error);
    }
  }

  /** Releases the event. Idempotent; records and waits already enqueued (or queued) are unaffected. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#release(this.#slot);
  }

  /** The same as `close()`, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }

  #newNative(): NativeEvent {
    return new this.device.backend.Event(this.device.native, this.timing ? 0 : DISABLE_TIMING);
  }

  #release(slot: NativeSlot): void {
    if (--slot.users === 0) slot.native.destroy();
  }

  #check(name = 'event'): void {
    if (this.#closed) typeError(name, 'an open Event', received('a closed Event'));
    if (!this.#recorded && !this.#recordedByGraph) typeError(name, 'a recorded Event', received('an Event never recorded'));
    this.device.checkUsable();
  }
}
