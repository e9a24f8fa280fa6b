// Events: points in a stream's work, for cross-stream ordering, completion and timing.
import type { NativeEvent } from './native.js';
import { checkOptions, rangeError, typeError, received } from './errors.js';
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

/** A point in a stream's work. Record one with {@link Stream.record}. */
export class Event {
  /** The device the event belongs to. */
  readonly device: Device;
  /** Whether the event records timestamps. */
  readonly timing: boolean;
  /** @internal */
  readonly native: NativeEvent;
  #recorded: Stream | undefined;
  #closed = false;

  private constructor(device: Device, timing: boolean) {
    this.device = device;
    this.timing = timing;
    this.native = new device.backend.Event(device.native, timing ? 0 : DISABLE_TIMING);
  }

  /** @internal Use {@link Stream.record} or {@link Device.createEvent}. */
  static create(device: Device, options: EventOptions = {}): Event {
    checkOptions('options', options);
    const { timing = false } = options;
    if (typeof timing !== 'boolean') typeError('timing', 'a boolean', timing);
    return new Event(device, timing);
  }

  /** @internal */
  recordedOn(stream: Stream): void {
    this.#recorded = stream;
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The stream the event was last recorded on, if any. */
  recordedStream(): Stream | undefined {
    return this.#recorded;
  }

  /** True when the work before the event has completed. Never waits. */
  query(): boolean {
    this.#check();
    try {
      return this.native.query();
    } catch (error) {
      this.device.fail(error);
    }
  }

  /**
   * Resolves when the work before the event has completed, woken by the driver (no polling, no
   * blocking). Work enqueued on the event's stream after the event does not delay it.
   */
  completed(): Promise<void> {
    this.#check();
    if (this.query()) return Promise.resolve();
    const watcher = this.device.serviceStream();
    watcher.wait(this);
    return watcher.synchronized();
  }

  /**
   * Milliseconds from `start` to this event, both recorded with `timing: true` and completed.
   * @throws TypeError when either event is untimed, unrecorded or closed; CudaError
   * (CUDA_ERROR_NOT_READY) when one has not completed yet.
   */
  elapsedSince(start: Event): number {
    if (!(start instanceof Event)) typeError('start', 'an Event', start);
    if (start.device !== this.device) rangeError('start', `an event of ${this.device}`, start);
    for (const [name, event] of [['start', start], ['end', this]] as const) {
      event.#check(name);
      if (!event.timing) typeError(name, 'an event recorded with { timing: true }', received('an untimed Event'));
    }
    try {
      return start.native.elapsed(this.native);
    } catch (error) {
      this.device.fail(error);
    }
  }

  /** Releases the event. Idempotent; waits already enqueued on it are unaffected. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.native.destroy();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #check(name = 'event'): void {
    if (this.#closed) typeError(name, 'an open Event', received('a closed Event'));
    if (!this.#recorded) typeError(name, 'a recorded Event', received('an Event never recorded'));
    this.device.checkUsable();
  }
}
