// An event's engine: what rxcuda keeps of an event below the public Event. It owns the event's
// native events and the queued commands that use them: the records and waits a stream, a graph
// or a completion point makes. rxcuda's own events (completion points, spinning waits) are
// engines alone.
import type { NativeDevice, NativeEvent } from '../native/types.js';
import { DISABLE_TIMING } from '../native/types.js';
import { settling, type Command, type Pause } from '../queue/scheduler.js';
import type { EngineEvent, StreamEngine } from '../queue/stream-engine.js';

/** What an event's engine takes from its device: the native device and its event class. */
export interface EventDevice {
  readonly backend: { readonly Event: new (device: NativeDevice, flags: number) => NativeEvent };
  readonly native: NativeDevice;
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

/** One event's native events and records; `S` is what records it for the user (a Stream). */
export class EventEngine<S = unknown> implements EngineEvent {
  readonly #device: EventDevice;
  readonly #timing: boolean;
  #slot: NativeSlot;
  #recordedBy: S | undefined;
  /** Recorded at least once: by a stream, one of rxcuda's own lanes, or a graph's record node. */
  #everRecorded = false;
  #closed = false;

  constructor(device: EventDevice, timing: boolean) {
    this.#device = device;
    this.#timing = timing;
    this.#slot = new NativeSlot(this.#newNative());
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Whether it was ever recorded (by a stream, a lane or a graph's record node). */
  get everRecorded(): boolean {
    return this.#everRecorded;
  }

  /** What recorded it last for the user (the stream), if anything did. */
  get recordedBy(): S | undefined {
    return this.#recordedBy;
  }

  /** Whether the latest record still waits in its stream's queue. */
  get pending(): boolean {
    return this.#slot.unrecorded > 0;
  }

  /** The lane of the latest record, while that record still waits in the lane's queue. */
  get pendingLane(): StreamEngine | undefined {
    return this.pending ? this.#slot.lane : undefined;
  }

  /** The native event that records and waits made now use. */
  get native(): NativeEvent {
    return this.#slot.native;
  }

  /**
   * The command that records this event on `lane` (see Stream.record); `by` is the user's stream
   * whose lane it is, when one records it.
   */
  recordCommand(lane: StreamEngine, by?: S): Command {
    let slot = this.#slot;
    if (slot.users > 1) {
      slot = new NativeSlot(this.#newNative());
      this.#release(this.#slot);
      this.#slot = slot;
    }
    slot.users++;
    slot.unrecorded++;
    slot.lane = lane;
    if (by) this.#recordedBy = by;
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
   * The command that makes `lane` wait for this event's latest record: at once when that record
   * has reached the driver, else once it does (the lane's queue pauses meanwhile).
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
   * The native event that records and waits made now use, kept (past `close()` too) until the
   * returned function lets it go: what a graph's event node records or waits for.
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

  /** Event.query without its checks: true on a broken device, where nothing runs any more. */
  reached(): boolean {
    if (this.pending) return false;
    try {
      return this.#slot.native.query();
    } catch {
      return true;
    }
  }

  /** Releases the event. Idempotent; records and waits already enqueued (or queued) are unaffected. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#release(this.#slot);
  }

  #newNative(): NativeEvent {
    return new this.#device.backend.Event(this.#device.native, this.#timing ? 0 : DISABLE_TIMING);
  }

  #release(slot: NativeSlot): void {
    if (--slot.users === 0) slot.native.destroy();
  }
}
