// A lane's side streams, for `fanOut`: made on first use on each device and kept for the lane's
// life, with the event values fork from; what a call could not finish making goes again.
import type { Device } from '../../core/api/device.js';
import type { Event } from '../../core/api/event.js';
import type { Stream } from '../../core/api/stream.js';

/**
 * The most branches of a `fanOut`: each is a side stream (and an event) of every lane that runs
 * it, kept for the pool's life. A GPU runs at most 32 streams side by side, so a larger number
 * is taken for a mistake.
 */
export const MAX_BRANCHES = 64;

/** A side stream of a lane, for `fanOut`, with the event its branch is joined through. */
export interface SideStream {
  readonly stream: Stream;
  readonly joined: Event;
}

/** The side streams of one lane, by device. */
export class SideStreams {
  readonly #byDevice = new Map<Device, SideStream[]>();
  #fork: Event | undefined;

  /**
   * `count` side streams, branch `i`'s on `devices[i]` (`own` without them), and the event of
   * `own` that values fork from, made on first use and reused: recording an event again does not
   * disturb waits already enqueued. A device that refuses a stream or an event: the ones this call
   * made are closed again, so that the lane keeps no more than its values have used (nor holds
   * the device's streams from others), and the device's error is thrown.
   */
  take(own: Device, count: number, devices?: readonly Device[]): { fork: Event; streams: SideStream[] } {
    const taken = new Map<Device, number>();
    const made: SideStream[] = [];
    try {
      const fork = (this.#fork ??= own.createEvent());
      const streams = Array.from({ length: count }, (_, i) => {
        const device = devices?.[i] ?? own;
        const k = taken.get(device) ?? 0;
        taken.set(device, k + 1);
        let list = this.#byDevice.get(device);
        if (!list) this.#byDevice.set(device, (list = []));
        while (list.length <= k) {
          const stream = sideStream(device);
          made.push(stream);
          list.push(stream);
        }
        return list[k]!;
      });
      return { fork, streams };
    } catch (error) {
      for (const side of made) {
        const list = this.#byDevice.get(side.stream.device)!;
        list.splice(list.indexOf(side), 1);
        try {
          closeSide(side);
        } catch {} // the device's own failure is the one to report
      }
      throw error;
    }
  }

  /** Closes every side stream and event (behind the work enqueued on them). */
  close(): void {
    for (const side of [...this.#byDevice.values()].flat()) closeSide(side);
    this.#byDevice.clear();
    this.#fork?.close();
  }
}

/** A side stream of `device` and its event; neither when either cannot be made. */
function sideStream(device: Device): SideStream {
  const stream = device.createStream({ nonBlocking: true });
  try {
    return { stream, joined: device.createEvent() };
  } catch (error) {
    stream.close();
    throw error;
  }
}

/** Closes a side stream and its event. */
function closeSide(side: SideStream): void {
  side.stream.close();
  side.joined.close();
}
