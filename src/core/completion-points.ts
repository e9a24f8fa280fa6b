// Completion points that follow work spread over streams (an event's completion, a free behind
// several streams, an unload): each gets a stream of its own from a pool, waits there for the
// events it follows, and is notified there. No completion point waits behind an unrelated one,
// and a pool stream goes back to the pool only once its own wait has completed.
import type { Device } from './device.js';
import { Event } from './event.js';
import type { Stream } from './stream.js';

/** @internal A device's pool of streams for completion points. */
export class CompletionPoints {
  readonly #device: Device;
  readonly #free: Stream[] = [];
  #open = 0;

  constructor(device: Device) {
    this.#device = device;
  }

  /** Pool streams made so far (busy or free): as many as completion points ever overlapped. */
  get size(): number {
    return this.#open;
  }

  /**
   * Once the work before each of `points` has completed (an event's latest record, or all work
   * given to a stream so far; queued work included): enqueues `then` on the point's stream (a free, say), then calls `done` on the main
   * thread with the stream's status (and the error, when it failed) once that has completed too.
   */
  after(
    points: readonly (Event | Stream)[],
    then: ((stream: Stream) => void) | undefined,
    done: (status: number, error?: unknown) => void,
  ): void {
    const stream = this.#free.pop() ?? this.#create();
    for (const point of points) {
      if (point instanceof Event) stream.waitInternal(point);
      else stream.waitForWorkOf(point);
    }
    then?.(stream);
    stream.notify((status, error) => {
      this.#free.push(stream);
      done(status, error);
    });
  }

  #create(): Stream {
    this.#open++;
    return this.#device.createInternalStream();
  }
}
