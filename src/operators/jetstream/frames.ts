// The pinned frames a worker decodes payloads into, from its lane pool: the pool's free lists keep
// them from message to message (and for the next worker on the pool), and its stats count them.
import { ArgumentRangeError } from '../../core/base/errors.js';
import type { HostArray, Stream } from '../../core/index.js';
import type { LanePool } from '../index.js';

/** Pinned frames of one size, taken from a lane pool and given back to it. */
export class Frames {
  readonly bytes: number;
  readonly #pool: LanePool;

  constructor(pool: LanePool, bytes: number) {
    this.#pool = pool;
    this.bytes = bytes;
  }

  /** A frame from the pool: a free one (holding what it held before), or a new one. */
  take(): HostArray<'u8'> {
    return this.#pool.engine.host('u8', this.bytes);
  }

  /**
   * Writes `payload` into `frame` (a copy, or `decode`) and returns the bytes it holds; throws
   * what `decode` threw, or a RangeError for a length that `decode` returned (the payload's, where
   * it returned nothing) and the frame cannot hold.
   */
  fill(frame: HostArray<'u8'>, payload: Uint8Array, decode: ((payload: Uint8Array, frame: Uint8Array) => number | void) | undefined): number {
    if (!decode) {
      frame.data.set(payload);
      return payload.length;
    }
    const written = decode(payload, frame.data);
    // Nothing returned stands for the payload's length, which the frame must hold too.
    const length = written === undefined ? payload.length : written;
    if (!Number.isInteger(length) || length < 0 || length > frame.length) {
      const got = written === undefined ? `undefined (the payload's length, ${payload.length})` : String(written);
      throw new ArgumentRangeError(`Expected \`decode\` to return the bytes it wrote, 0..${frame.length}, got ${got}`);
    }
    return length;
  }

  /** Gives a frame back to the pool: nothing reads or writes it any more. */
  give(frame: HostArray<'u8'>): void {
    this.#pool.engine.give(frame);
  }

  /**
   * Gives a frame back once the work enqueued so far on `stream` has finished (a failed value's
   * copies may still be reading it). A frame whose stream cannot tell (the pool was closed) is
   * closed instead, behind the work that used it.
   */
  giveAfter(frame: HostArray<'u8'>, stream: Stream): void {
    try {
      stream.onDone(() => this.give(frame));
    } catch {
      frame.close();
    }
  }
}
