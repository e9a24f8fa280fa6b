// Spinning waits (`synchronized({ spin })`): a second entrance to the completion road for low
// latency. The device writes a word of pinned memory when the stream gets there; a native watcher
// and the event loop look at it. The device still waits for nothing. Past the spin time (or once
// the stream closes), a completion point behind an event recorded at the same place settles it.
import { addon } from './native.js';
import { expectCompletion } from './completions.js';
import { Event } from './event.js';
import { HostArray } from './memory.js';
import type { Command } from './scheduler.js';
import type { Stream } from './stream.js';

/** Whether a word whose values only grow (wrapping at 2^32) has reached `value`. */
export function wordReached(word: number, value: number): boolean {
  return ((word - value) | 0) >= 0;
}

/** @internal The spinning waits of one stream and the word the stream writes for them. */
export class SpinningWaits {
  readonly #stream: Stream;
  #word: HostArray<'u32'> | undefined;
  #last = 0;
  /** Waits not settled yet: the watcher may still read the word, which stays until they settle. */
  #active = 0;
  #closing = false;
  /** The fallbacks of waits whose watcher has neither seen the write nor given up. */
  readonly #watching = new Set<() => void>();

  constructor(stream: Stream) {
    this.#stream = stream;
  }

  /**
   * The command of one wait: the device writes the next value, the watcher and the event loop look
   * for it, and the first to see it calls `settle(0)`; the fallback settles errors too.
   */
  command(spin: number, settle: (status: number, error?: unknown) => void): Command {
    this.#active++;
    return () => {
      const stream = this.#stream;
      const word = (this.#word ??= this.#newWord());
      const value = (this.#last = (this.#last + 1) >>> 0);
      const point = Event.create(stream.device);
      let done = false;
      const reached = (status: number, error?: unknown) => {
        if (done) return;
        done = true;
        this.#watching.delete(fallBack);
        point.close();
        if (--this.#active === 0 && this.#closing) word.close();
        settle(status, error);
      };
      const fallBack = () => {
        this.#watching.delete(fallBack);
        stream.device.completionPoints.after([point], undefined, reached);
      };
      try {
        stream.native.writeValue(word.ptr, value);
        point.recordCommand(stream)();
      } catch (error) {
        reached(-1, error);
        throw error;
      }
      this.#watching.add(fallBack);
      // The event loop keeps turning while the watcher watches, each turn looking at the word, so
      // the watcher does not wake the main thread for a write it saw (a quiet watch); it bounds the
      // wait, and its give-up does wake it, for the fallback.
      const turn = () => {
        if (!this.#watching.has(fallBack)) return;
        const seen = word.data[0];
        if (seen !== undefined && wordReached(seen, value)) reached(0);
        else setImmediate(turn);
      };
      setImmediate(turn);
      const id = expectCompletion((status) => {
        if (status === 0) reached(0);
        else if (this.#watching.has(fallBack)) fallBack(); // the watcher gave up
      });
      addon.watch(id, word.ptr, value, spin, true);
    };
  }

  /** The stream closes: waits still watched fall back, and the word goes once all have settled. */
  close(): void {
    this.#closing = true;
    for (const fallBack of [...this.#watching]) fallBack();
    if (this.#active === 0) this.#word?.close();
  }

  #newWord(): HostArray<'u32'> {
    const word = HostArray.allocate(this.#stream.device, 'u32', 1);
    word.allocation.use(this.#stream);
    return word;
  }
}
