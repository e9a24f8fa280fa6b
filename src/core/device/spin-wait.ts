// Spinning waits (`synchronized({ spin })`): a second entrance to the completion queue for low
// latency. The device writes a word of pinned memory when the stream gets there; a native watcher
// and the event loop look at it. The device still waits for nothing. Past the spin time (or once
// the stream closes), a completion point behind an event recorded at the same place settles it.
// A pipeline's values are watched through events by default (value-watches.ts, which has a word
// watch too, for measuring).
import { checkCount, rangeError } from '../base/errors.js';
import { addon } from '../native/addon.js';
import { expectCompletion } from '../native/completions.js';
import { memoryClasses, type HostMemoryView } from '../memory/memory-view.js';
import type { MemoryDevice } from '../memory/owner.js';
import { settling, type Command } from '../queue/scheduler.js';
import type { StreamEngine, EngineEvent } from '../queue/stream-engine.js';
import type { DeviceEngine } from './device-engine.js';

/** An event a spinning wait records, for its fallback. */
export type SpinPoint = EngineEvent;


/**
 * The longest watch a spinning wait takes, in microseconds (an hour): more is taken for a mistake
 * (the native watcher's clock counts nanoseconds in 64 bits).
 */
export const MAX_SPIN_US = 3_600_000_000;

/** A spin time in 0..{@link MAX_SPIN_US} µs, or a TypeError/RangeError naming `name`. */
export function checkSpin(name: string, value: unknown): number {
  const spin = checkCount(name, value);
  if (spin > MAX_SPIN_US) rangeError(name, `an integer number of microseconds in 0..${MAX_SPIN_US}`, value);
  return spin;
}

/** Whether a word whose values only grow (wrapping at 2^32) has reached `value`. */
export function wordReached(word: number, value: number): boolean {
  return ((word - value) | 0) >= 0;
}

/** The spinning waits of one stream and the word the stream writes for them. */
export class SpinningWaits {
  readonly #lane: StreamEngine;
  readonly #device: DeviceEngine;
  #word: HostMemoryView<'u32'> | undefined;
  #last = 0;
  /** Waits not settled yet: the watcher may still read the word, which stays until they settle. */
  #active = 0;
  #closing = false;
  /** The fallbacks of waits whose watcher has neither seen the write nor given up. */
  readonly #watching = new Set<() => void>();
  /**
   * Events of settled waits, recorded again by later ones (a completion point still waiting for
   * an earlier record keeps its own native event: see api/event.ts).
   */
  readonly #points: SpinPoint[] = [];

  constructor(lane: StreamEngine, device: DeviceEngine) {
    this.#lane = lane;
    this.#device = device;
  }

  /**
   * The command of one wait: the device writes the next value, the watcher and the event loop look
   * for it, and the first to see it calls `settle(0)`; the fallback settles errors too.
   */
  command(spin: number, settle: (status: number, error?: unknown) => void): Command {
    this.#active++;
    return settling(() => {
      const lane = this.#lane;
      let done = false;
      let word: HostMemoryView<'u32'> | undefined;
      let point: SpinPoint | undefined;
      const reached = (status: number, error?: unknown) => {
        if (done) return;
        done = true;
        this.#watching.delete(fallBack);
        settle(status, error);
        this.#settled(point);
      };
      const fallBack = () => {
        this.#watching.delete(fallBack);
        this.#device.completionPoints.after([point!], undefined, reached);
      };
      const value = (this.#last = (this.#last + 1) >>> 0);
      try {
        word = this.#word ??= laneWord(this.#device, this.#lane);
        lane.native.writeValue(word.ptr, value);
        point = this.#recordPoint();
      } catch (error) {
        lane.faults.record(error);
        return reached(-1, error); // settled with the error: nothing more to report
      }
      const seenWord = word;
      this.#watching.add(fallBack);
      // The event loop keeps turning while the watcher watches, each turn looking at the word, so
      // the watcher does not wake the main thread for a write it saw (a quiet watch); it bounds the
      // wait, and its give-up does wake it, for the fallback.
      const turn = () => {
        if (!this.#watching.has(fallBack)) return;
        const seen = memoryClasses.elements(seenWord)[0]; // undefined once freed
        if (seen !== undefined && wordReached(seen, value)) reached(0);
        else setImmediate(turn);
      };
      setImmediate(turn);
      const id = expectCompletion((status) => {
        if (status === 0) reached(0);
        else if (this.#watching.has(fallBack)) fallBack(); // the watcher gave up
      });
      addon.watch(id, seenWord.ptr, value, spin);
    }, (error) => {
      settle(-1, error); // its lane broke before it ran
      this.#settled(undefined);
    });
  }

  /** The stream closes: waits still watched fall back, and the word goes once all have settled. */
  close(): void {
    this.#closing = true;
    for (const fallBack of [...this.#watching]) fallBack();
    if (this.#active === 0) this.#release();
  }

  /** An event from the pool (or a new one), recorded on the stream now. */
  #recordPoint(): SpinPoint {
    const point = this.#points.pop() ?? this.#device.newEvent();
    point.recordCommand(this.#lane)();
    return point;
  }

  /** A wait has settled: its event goes back to the pool, and the last one after close releases. */
  #settled(point: SpinPoint | undefined): void {
    if (point) this.#points.push(point);
    if (--this.#active === 0 && this.#closing) this.#release();
  }

  #release(): void {
    this.#word?.close();
    for (const point of this.#points.splice(0)) point.close();
  }
}

/** A pinned word of `lane`'s that its stream writes: freed behind the lane's work once closed. */
export function laneWord(device: MemoryDevice, lane: StreamEngine): HostMemoryView<'u32'> {
  const word = memoryClasses.allocateHost(device, 'u32', 1);
  word.allocation.use(lane);
  return word;
}
