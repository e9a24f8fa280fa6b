// Stream lanes for the reactive layer: a few streams of one device, pools of device and pinned
// memory that they share, reused from value to value, and the bound on values in flight.
import type { DType } from '../core/dtype.js';
import type { Device } from '../core/device.js';
import { checkOptions, rangeError } from '../core/errors.js';
import { HostArray, type DeviceArray, type Memory } from '../core/memory.js';
import type { Event } from '../core/event.js';
import type { Stream } from '../core/stream.js';
import type { Timeline } from './timeline.js';

/** @internal A side stream of a lane, for `fanOut`, with the event its branch is joined through. */
export interface SideStream {
  readonly stream: Stream;
  readonly joined: Event;
}

/** Options for {@link LanePool}. */
export interface LanePoolOptions {
  /**
   * Streams values are spread over: each value goes to the lane with the fewest values in
   * flight (round robin among equals).
   * @default 2
   */
  readonly lanes?: number;
  /**
   * Values whose device work may be in flight at once; more wait upstream.
   * @default twice the lanes
   */
  readonly inFlight?: number;
  /** Records each value's stages, to look at the lanes overlapping. */
  readonly timeline?: Timeline;
}

/** Counters of a pool, for seeing that the bound holds and that nothing is kept. */
export interface LanePoolStats {
  /** Values whose device work has not finished. */
  readonly inFlight: number;
  /** The most values ever in flight at once. */
  readonly maxInFlight: number;
  /** Pooled buffers handed out and not yet returned. */
  readonly buffersInUse: number;
  /** Pooled buffers ever allocated (steady state: this stops growing). */
  readonly buffersCreated: number;
}

/**
 * One stream of a pool. Its memory comes from the pool's free lists, which every lane shares: a
 * buffer goes back only once the work that used it has finished, so any lane may take it next,
 * and the pool holds what is in flight, not that times the lanes.
 */
export class Lane {
  /** The lane's position in its pool. */
  readonly index: number;
  /** The stream values on this lane are enqueued on. */
  readonly stream: Stream;
  /** The pool the lane belongs to. */
  readonly pool: LanePool;
  readonly #sides: SideStream[] = [];
  #fork: Event | undefined;
  /** Values started on this lane whose device work has not finished. */
  #inFlight = 0;

  constructor(pool: LanePool, index: number, stream: Stream) {
    this.pool = pool;
    this.index = index;
    this.stream = stream;
  }

  /** Values on this lane whose device work has not finished. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** A device array from the pool (allocated, ordered on this lane's stream, when none is free). */
  device<D extends DType>(dtype: D, length: number): DeviceArray<D> {
    return this.pool.take(`d:${dtype}:${length}`, () => this.stream.alloc(dtype, length)) as DeviceArray<D>;
  }

  /** A pinned host array from the pool. */
  host<D extends DType>(dtype: D, length: number): HostArray<D> {
    return this.pool.host(dtype, length);
  }

  /** Returns a pooled buffer; only once the work that used it has finished. */
  give(memory: Memory): void {
    this.pool.give(memory);
  }

  /** @internal A value started (+1) or finished (-1) on this lane. */
  flight(delta: 1 | -1): void {
    this.#inFlight += delta;
    this.pool.flight(delta);
  }

  /**
   * @internal The first `count` side streams of this lane, and the event values fork from, made
   * on first use and reused: recording an event again does not disturb waits already enqueued.
   */
  sides(count: number): { fork: Event; sides: SideStream[] } {
    const device = this.stream.device;
    while (this.#sides.length < count)
      this.#sides.push({ stream: device.createStream({ nonBlocking: true }), joined: device.createEvent() });
    return { fork: (this.#fork ??= device.createEvent()), sides: this.#sides.slice(0, count) };
  }

  /** Closes the stream and the side streams. */
  close(): void {
    for (const side of this.#sides.splice(0)) {
      side.stream.close();
      side.joined.close();
    }
    this.#fork?.close();
    this.stream.close();
  }
}

/**
 * Lanes of one device for {@link onStreams}: streams with memory pools, and the bound on values
 * in flight. One pool can serve one pipeline at a time.
 */
export class LanePool {
  /** The device the lanes' streams belong to. */
  readonly device: Device;
  /** The lanes; a value goes to the one with the fewest values in flight. */
  readonly lanes: readonly Lane[];
  /** The most values in flight at once. */
  readonly bound: number;
  /** The timeline the pool's pipelines record into, if any. */
  readonly timeline: Timeline | undefined;
  readonly #free = new Map<string, Memory[]>();
  #closed = false;
  #inFlight = 0;
  #maxInFlight = 0;
  #inUse = 0;
  #created = 0;

  constructor(device: Device, options: LanePoolOptions = {}) {
    checkOptions('options', options);
    const { lanes = 2 } = options;
    if (typeof lanes !== 'number' || !Number.isInteger(lanes) || lanes < 1) rangeError('lanes', 'a positive integer', lanes);
    const { inFlight = lanes * 2 } = options;
    if (typeof inFlight !== 'number' || !Number.isInteger(inFlight) || inFlight < 1) rangeError('inFlight', 'a positive integer', inFlight);
    this.device = device;
    this.bound = inFlight;
    this.timeline = options.timeline;
    this.lanes = Array.from({ length: lanes }, (_, i) => new Lane(this, i, device.createStream({ nonBlocking: true })));
  }

  /** The pool's counters now. */
  get stats(): LanePoolStats {
    return { inFlight: this.#inFlight, maxInFlight: this.#maxInFlight, buffersInUse: this.#inUse, buffersCreated: this.#created };
  }

  /** @internal Whether another value may start. */
  get full(): boolean {
    return this.#inFlight >= this.bound;
  }

  /** @internal A value started (+1) or finished (-1). */
  flight(delta: 1 | -1): void {
    this.#inFlight += delta;
    this.#maxInFlight = Math.max(this.#maxInFlight, this.#inFlight);
  }

  /**
   * @internal The lane the next value goes to: the one with the fewest values in flight, the
   * first such from `from` on (round robin while the lanes keep pace with one another).
   */
  leastLoaded(from: number): Lane {
    let best = this.lanes[from % this.lanes.length]!;
    for (let k = 1; k < this.lanes.length && best.inFlight > 0; k++) {
      const lane = this.lanes[(from + k) % this.lanes.length]!;
      if (lane.inFlight < best.inFlight) best = lane;
    }
    return best;
  }

  /** @internal A pinned host array from the pool (pinned memory belongs to no stream). */
  host<D extends DType>(dtype: D, length: number): HostArray<D> {
    return this.take(`h:${dtype}:${length}`, () => this.device.allocHost(dtype, length)) as HostArray<D>;
  }

  /** @internal A free buffer of `key`, or a new one from `create`. */
  take(key: string, create: () => Memory): Memory {
    const reused = this.#free.get(key)?.pop();
    if (!reused) this.#created++;
    this.#inUse++;
    return reused ?? create();
  }

  /** @internal Takes back a buffer whose work has finished (frees it once the pool is closed). */
  give(memory: Memory): void {
    this.#inUse--;
    if (this.#closed) return memory.closeIdle();
    const key = `${memory instanceof HostArray ? 'h' : 'd'}:${memory.dtype}:${memory.length}`;
    let list = this.#free.get(key);
    if (!list) this.#free.set(key, (list = []));
    list.push(memory);
  }

  /** Frees the pooled memory (behind the work that used it) and closes the streams. */
  close(): void {
    this.#closed = true;
    // Their work has finished: pinned blocks go back for reuse at once (see pinned-cache.ts).
    for (const list of this.#free.values()) for (const memory of list) memory.closeIdle();
    this.#free.clear();
    for (const lane of this.lanes) lane.close();
  }
}
