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
    // A broken context runs nothing more: what waits for it settles with its error at once.
    const broken = this.#device.poisoned;
    if (broken) return done(-1, broken);
    let stream: Stream;
    try {
      stream = this.#free.pop() ?? this.#create();
    } catch (error) {
      return done(-1, error);
    }
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

  /**
   * Calls `call` once the work that every open stream of the device has handed to the driver so
   * far has completed (work still waiting in a stream's queue, behind an unsettled host step, is
   * not on the device and is not waited for), and all work given to `closed` (streams that used
   * the resource and may have been closed since): for driver calls that wait for the whole device
   * (a module load or unload, a pinned free). Made while a kernel runs, such a call would wait for
   * it inside the driver, holding the driver's lock that the main thread's next driver call needs
   * (measured on an H200: an allocHost then waited for a kernel on another stream); made after the
   * device's known work, it seldom waits at all. On a broken context the call fails in the driver.
   */
  whenQuiet(call: () => void, closed: readonly Stream[] = []): void {
    const markers: Event[] = [];
    try {
      for (const stream of this.#device.liveStreams()) if (!closed.includes(stream)) markers.push(stream.driverMarker());
    } catch {
      // A broken context: nothing more runs on it, and the call fails in the driver.
    }
    this.after([...markers, ...closed], undefined, () => call());
    for (const marker of markers) marker.close(); // the queued waits keep their native events
  }

  #create(): Stream {
    this.#open++;
    return this.#device.createInternalStream();
  }
}
