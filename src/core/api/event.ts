// Events: points in a stream's work, for cross-stream ordering, completion and timing. A record
// may still wait in its stream's queue (behind an unsettled host step); a wait for it then waits in
// its own stream's queue until the record reaches the driver (see scheduler.ts).
import { brand, CudaError, isInstance, rangeError, typeError, received } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import { guardedWait } from '../queue/self-wait.js';
import type { Recorder } from '../device/recorder.js';
import type { Device } from './device.js';
import { EventEngine } from '../device/event-engine.js';
import type { Stream } from './stream.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';

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
 * A new event of `device`: what {@link Stream.record} and {@link Device.createEvent} make (the
 * constructor is private to the class, which keeps it out of the API).
 */
export let createEvent: (device: Device, options?: EventOptions) => Event;

/** A point in a stream's work. Record one with {@link Stream.record}. */
export class Event {
  /** The device the event belongs to. */
  readonly device: Device;
  /** Whether the event records timestamps. */
  readonly timing: boolean;
  /** @internal Its native events and records, as rxcuda uses them. */
  readonly engine: EventEngine<Stream>;
  static {
    brand(this, (value) => #event in value);
  }
  #event(): void {}

  private constructor(token: ConstructorToken, device: Device, timing: boolean) {
    checkConstructorToken(token, 'an Event', 'stream.record() or device.createEvent()');
    this.device = device;
    this.timing = timing;
    this.engine = new EventEngine(device.engine, timing);
  }

  static #create(device: Device, options: EventOptions = {}): Event {
    checkOptions('options', options, ['timing']);
    const { timing = false } = options;
    if (typeof timing !== 'boolean') typeError('timing', 'a boolean', timing);
    return new Event(CONSTRUCTOR_TOKEN, device, timing);
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.engine.closed;
  }

  /**
   * The stream the event was last recorded on, if any.
   * @example
   * const done = stream.record();
   * console.log(done.recordedStream() === stream); // true
   */
  recordedStream(): Stream | undefined {
    return this.engine.recordedBy;
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
    if (this.engine.pending) return false;
    try {
      return this.engine.native.query();
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
    return guardedWait(this.engine.pendingLane, 'event.completed() (of an event recorded behind it)', () => new Promise((resolve, reject) =>
      this.device.engine.completionPoints.after([this.engine], undefined, (status, error) => {
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
      if (event.engine.pending)
        throw new CudaError(
          600,
          'CUDA_ERROR_NOT_READY',
          'cuEventElapsedTime',
          `\`${name}\` is not recorded yet: its record() waits in its stream's queue behind an unsettled host step. ` +
            'Await event.completed() first.',
        );
    }
    try {
      return start.engine.native.elapsed(this.engine.native);
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
    this.engine.close();
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

  #check(name = 'event'): void {
    if (this.engine.closed) typeError(name, 'an open Event', received('a closed Event'));
    if (!this.engine.everRecorded) typeError(name, 'a recorded Event', received('an Event never recorded'));
    this.device.engine.checkUsable();
  }
  static {
    createEvent = (device, options) => Event.#create(device, options);
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
  const event = given ?? createEvent(device, options as EventOptions | undefined);
  if (!lane.recorder?.record(event.engine)) lane.run(event.engine.recordCommand(lane, by));
  return event;
}

/** See {@link Stream.wait}. */
export function waitOn(lane: StreamEngine<Recorder>, device: Device, event: Event): void {
  if (!isInstance(event, Event)) typeError('event', 'an Event', event);
  if (event.device.engine.backend !== device.engine.backend) rangeError('event', `an event of a ${device.kind} device`, received(`an event of ${event.device}`));
  if (event.closed) typeError('event', 'an open Event', received('a closed Event'));
  lane.checkOpen();
  if (lane.recorder?.wait(event.engine)) return;
  lane.run(event.engine.waitCommand(lane, (error) => lane.queuedFailure(error)));
}
