// A pipeline's values watched on a GPU (LanePool `spin`): behind each value's work the lane records
// one of its own events, which the addon's watcher thread queries; its completion comes back
// through the completion queue. One native call per value on the main thread (the capture check,
// the record and the watch together; the watcher queries only the oldest event of each stream, as
// a stream's events complete in order), where a notification costs three driver calls (a record,
// a wait on the notifier, a host callback), and nothing allocated per value: events, entries and
// the handler are the lane's, reused. With word watches (setWatchRoad('words'), for measuring) the stream
// writes the value's number to a word of the lane's instead, which the watcher reads without a
// driver call of its own.
// The watcher may see a later value's completion before an earlier one's: values are settled in
// the lane's order, each once those before it have settled. A watch that gives up (past `spin`, or
// a failed query) falls back to a completion point behind the same event (with a word watch, one
// recorded when it gives up), which reports errors, and the lane's next values are notified
// instead (values that outlast `spin` would each pay for both a watch and a notification): 32 of them, twice as many
// after each further give-up (up to 1024), then one watch again, the lane's next values notified
// while it lasts (with several values in flight, they would all be watched and all give up); a
// watch that sees its value starts the count at 32 again, and once the values being notified are
// done the lane watches every value.
import { cancelCompletion, expectCompletionWith } from '../native/completions.js';
import { DISABLE_TIMING, type NativeEvent } from '../native/types.js';
import { settling } from '../queue/scheduler.js';
import { notifyRefusingCapture, refusedUnderCapture, settleValue, type ValueWaiter } from '../queue/host-steps.js';
import type { StreamEngine, EngineMark } from '../queue/stream-engine.js';
import { typeError, type CudaError } from '../base/errors.js';
import type { HostMemoryView } from '../memory/memory-view.js';
import type { DeviceEngine } from './device-engine.js';
import { laneWord } from './spin-wait.js';


/** How values are watched: an event each, or a word of the lane's that the stream writes. */
export type WatchRoad = 'events' | 'words';
let watchKind: WatchRoad = 'events';

/** Sets the kind of the watches that start from now on (see rxcuda/internal). */
export function setWatchRoad(value: WatchRoad): void {
  // The message names the argument `road`, as the function's name does.
  if (value !== 'events' && value !== 'words') typeError('road', "'events' or 'words'", value);
  watchKind = value;
}

/** One value: its event (none when notified or watched through a word), what waits for it, and how it ended. */
class Watched {
  event: NativeEvent | undefined;
  /** Watched through the lane's word (a word watch), until a give-up. */
  onWord = false;
  waiter: ValueWaiter | undefined;
  mark = 0;
  /** The watch's limit, µs; 0: the value is notified through a host callback instead. */
  spin = 0;
  ended = false;
  status = 0;
  error: unknown;
}

/** Entries at most kept for reuse per lane (about its values in flight). */
const MAX_SPARE = 64;
/** Values notified after a lane's first give-up, and at most after many. */
const FIRST_SKIP = 32;
const MAX_SKIP = 1024;

/** The watched values of one CUDA stream's lane. */
export class ValueWatches {
  readonly #lane: StreamEngine;
  readonly #owner: DeviceEngine;
  readonly #reached: (mark: number) => void;
  /** Values not settled yet, oldest first from #head: they settle in this order. */
  #order: (Watched | undefined)[] = [];
  #head = 0;
  readonly #spareEntries: Watched[] = [];
  readonly #spareEvents: NativeEvent[] = [];
  #closed = false;
  /** The word the stream writes behind each value under a word watch, and its last value. */
  #word: HostMemoryView<'u32'> | undefined;
  #written = 0;
  /** Values still to notify instead of watching, and how many after the next give-up. */
  #skip = 0;
  #nextSkip = FIRST_SKIP;
  /**
   * Since a give-up (the next count is past the first, until a watch sees its value), the one
   * value watched at a time, if any.
   */
  #probe: Watched | undefined;
  /** One handler for every completion of the lane, given its entry as data. */
  readonly #ended = (status: number, entry: Watched) => {
    const watched = entry.event !== undefined || entry.onWord; // not notified
    if (entry === this.#probe) this.#probe = undefined;
    if (watched && status === 0) this.#nextSkip = FIRST_SKIP; // a watch that saw its value
    if (status === 0 || !watched) return this.end(entry, status);
    this.#gaveUp();
    this.#fallBack(entry);
  };

  constructor(lane: StreamEngine, owner: DeviceEngine, reached: (mark: number) => void) {
    this.#lane = lane;
    this.#owner = owner;
    this.#reached = reached;
  }

  /**
   * Watches the work given to the lane so far, for up to `spin` µs (or notifies it, after a
   * give-up); then `waiter.valueDone(error)`, on the main thread, never before this returns.
   */
  watch(waiter: ValueWaiter, spin: number): void {
    const entry = this.#spareEntries.pop() ?? new Watched();
    entry.waiter = waiter;
    entry.mark = this.#lane.given + 1;
    const notified = this.#skip > 0 || this.#probe !== undefined;
    if (!notified && this.#nextSkip > FIRST_SKIP) this.#probe = entry; // since a give-up
    entry.spin = notified ? 0 : spin;
    this.#order.push(entry);
    try {
      this.#lane.runWith(watchCommand, this, entry, dropped);
    } catch (error) {
      // Refused before it was given (a recording lane's refusal): nothing will end it.
      if (this.#order[this.#order.length - 1] === entry) this.#order.pop();
      if (this.#probe === entry) this.#probe = undefined;
      entry.waiter = undefined;
      this.#spareEntries.push(entry);
      throw error;
    }
    if (notified) {
      if (this.#skip > 0) this.#skip--; // not while only a watch in progress has it notified
      this.#lane.valueCompletions.notified++;
    } else this.#lane.valueCompletions.watched++;
  }

  /** @internal The command's body: records the entry's event and hands it to the watcher, or notifies. */
  start(entry: Watched): void {
    const lane = this.#lane;
    if (entry.spin === 0) return notifyRefusingCapture(lane, expectCompletionWith(this.#ended, entry, 0), true);
    if (watchKind === 'words') return this.#startOnWord(entry);
    const event = this.#spareEvents.pop() ?? new this.#owner.backend.Event(this.#owner.native, DISABLE_TIMING);
    const id = expectCompletionWith(this.#ended, entry, 0);
    let recorded: boolean;
    try {
      recorded = lane.native.watchRecorded!(id, event, entry.spin); // the capture check, the record and the watch
    } catch (error) {
      cancelCompletion(id);
      this.#giveBack(event);
      throw error;
    }
    if (!recorded) {
      this.#giveBack(event);
      refusedUnderCapture(id, 'cuEventRecord');
    }
    entry.event = event;
  }

  /** A word watch: the stream writes the lane's next value to its word, which the watcher reads. */
  #startOnWord(entry: Watched): void {
    const lane = this.#lane;
    const word = (this.#word ??= laneWord(this.#owner, lane));
    // Taken before the call: a number a failed call may have had written is never waited for again.
    const value = (this.#written = (this.#written + 1) >>> 0);
    const id = expectCompletionWith(this.#ended, entry, 0);
    let written: boolean;
    try {
      written = lane.native.watchWritten!(id, word.ptr, value, entry.spin);
    } catch (error) {
      cancelCompletion(id);
      throw error;
    }
    if (!written) refusedUnderCapture(id, 'cuStreamWriteValue32');
    entry.onWord = true;
  }

  /** The stream closes: events not in use go now, the others as their values settle. */
  close(): void {
    this.#closed = true;
    for (const event of this.#spareEvents.splice(0)) event.destroy();
    if (this.#head === this.#order.length) this.#releaseWord();
  }

  /** The watcher reads the word until the last watch of it ends: it goes once all have settled. */
  #releaseWord(): void {
    this.#word?.close();
    this.#word = undefined;
  }

  /** A watch gave up: the lane's next values are notified (see the top of this file). */
  #gaveUp(): void {
    this.#lane.valueCompletions.gaveUp++;
    this.#skip = this.#nextSkip;
    this.#nextSkip = Math.min(this.#nextSkip * 2, MAX_SKIP);
  }

  /**
   * The watcher gave up (or its query failed): a completion point behind the same event decides.
   * With a word watch the event is recorded now, straight on the stream, past the lane's queue:
   * behind the value's work, and never behind work that waits there (a later value's step); a
   * closed lane's completion point follows all its work instead.
   */
  #fallBack(entry: Watched): void {
    const lane = this.#lane;
    try {
      if (entry.onWord && !lane.closed) {
        entry.event = this.#spareEvents.pop() ?? new this.#owner.backend.Event(this.#owner.native, DISABLE_TIMING);
        lane.native.record(entry.event); // given back when the entry settles, as a watched one's
      }
      entry.onWord = false;
      const event = entry.event;
      const point: EngineMark | StreamEngine = event
        ? { waitCommand: (on) => settling(() => on.native.waitEvent(event), () => {}), reached: () => false }
        : lane;
      this.#owner.completionPoints.after([point], undefined, (status, error) => this.end(entry, status, error));
    } catch (error) {
      // The wait was refused (the device broke meanwhile): the value settles with that error.
      this.#lane.faults.record(error);
      this.end(entry, -1, error);
    }
  }

  /**
   * @internal An entry ended (with the status of its work, or dropped by a broken lane): settles
   * it and every entry after it that has ended too, once those before it have settled.
   */
  end(entry: Watched, status: number, error?: unknown): void {
    if (entry === this.#probe) this.#probe = undefined; // a watch that could not start, or dropped
    entry.ended = true;
    entry.status = status;
    entry.error = error;
    let order = this.#order;
    while (this.#head < order.length && order[this.#head]!.ended) {
      const first = order[this.#head]!;
      order[this.#head++] = undefined;
      this.#settle(first);
      order = this.#order; // a value settled may have watched another, or compacted
    }
    if (this.#head === order.length) {
      order.length = 0;
      this.#head = 0;
      if (this.#closed) this.#releaseWord();
    } else if (this.#head >= 32 && this.#head * 2 >= order.length) {
      order.copyWithin(0, this.#head);
      order.length -= this.#head;
      this.#head = 0;
    }
  }

  #settle(entry: Watched): void {
    const { waiter, mark, status } = entry;
    const error = status === 0 ? undefined : ((entry.error as CudaError | undefined) ?? this.#lane.statusError(status));
    if (entry.event) this.#giveBack(entry.event);
    entry.event = undefined;
    entry.onWord = false;
    entry.waiter = undefined;
    entry.error = undefined;
    entry.ended = false;
    if (this.#spareEntries.length < MAX_SPARE) this.#spareEntries.push(entry);
    settleValue(this.#lane, waiter!, error, mark, this.#reached);
  }

  #giveBack(event: NativeEvent): void {
    if (this.#closed || this.#spareEvents.length >= MAX_SPARE) event.destroy();
    else this.#spareEvents.push(event);
  }
}

/**
 * A watch as {@link ValueWatches.watch} gives it to its lane: no closure per value. A watch that
 * cannot start settles its value with the error, in order, and never synchronously: the operator
 * that asked holds the value just after.
 */
function watchCommand(lane: StreamEngine, watches: ValueWatches, entry: Watched): void {
  try {
    watches.start(entry);
  } catch (error) {
    lane.faults.record(error);
    queueMicrotask(() => watches.end(entry, -1, error));
  }
}

/** A watch dropped by its broken lane: the value settles with the device's error, in order, later. */
function dropped(_lane: StreamEngine, watches: ValueWatches, entry: Watched, error: unknown): void {
  queueMicrotask(() => watches.end(entry, -1, error));
}
