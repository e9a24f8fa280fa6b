// The pinned frames a worker decodes payloads into: reused from message to message, so that once
// the worker is warm no memory is allocated per message.
import type { Device, HostArray, Stream } from '../../core/index.js';

/** Pinned frames of one size, handed out and taken back. */
export class Frames {
  readonly bytes: number;
  readonly #device: Device;
  readonly #free: HostArray<'u8'>[] = [];
  #closed = false;

  constructor(device: Device, bytes: number) {
    this.#device = device;
    this.bytes = bytes;
  }

  /** A free frame (holding what it held before), or a new one. */
  take(): HostArray<'u8'> {
    return this.#free.pop() ?? this.#device.allocHost('u8', this.bytes);
  }

  /** Takes a frame back: nothing reads or writes it any more. */
  give(frame: HostArray<'u8'>): void {
    if (this.#closed) frame.close();
    else this.#free.push(frame);
  }

  /**
   * Takes a frame back once the work enqueued so far on `stream` has finished (a failed value's
   * copies may still be reading it). A frame whose stream cannot tell (closed, or its device
   * broken) is not reused: the garbage collector frees it.
   */
  giveAfter(frame: HostArray<'u8'>, stream: Stream): void {
    try {
      stream.onDone((error) => {
        if (!error) this.give(frame);
      });
    } catch {}
  }

  /** Frees the free frames; frames still out are freed when they come back. */
  close(): void {
    this.#closed = true;
    for (const frame of this.#free.splice(0)) frame.close();
  }
}
