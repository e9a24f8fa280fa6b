// Stream lanes for the reactive layer: a few streams of one device, each with pools of device
// and pinned memory reused from value to value, and the bound on values in flight.
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
   * Streams values are spread over, round robin.
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

/** One stream of a pool and its memory pools. */
export class Lane {
  /** The lane's position in its pool. */
  readonly index: number;
  /** The stream values on this lane are enqueued on. */
  readonly stream: Stream;
  /** The pool the lane belongs to. */
  readonly pool: LanePool;
  readonly #free = new Map<string, Memory[]>();
  readonly #sides: SideStream[] = [];
  #fork: Event | undefined;
  #closed = false;

  constructor(pool: LanePool, index: number, stream: Stream) {
    this.pool = pool;
    this.index = index;
    this.stream = stream;
  }

  /** A device array from this lane's pool (allocated, stream-ordered, when the pool is empty). */
  device<D extends DType>(dtype: D, length: number): DeviceArray<D> {
    return this.#take(`d:${dtype}:${length}`, () => this.stream.alloc(dtype, length)) as DeviceArray<D>;
  }

  /** A pinned host array from this lane's pool. */
  host<D extends DType>(dtype: D, length: number): HostArray<D> {
    return this.#take(`h:${dtype}:${length}`, () => this.stream.device.allocHost(dtype, length)) as HostArray<D>;
  }

  /** Returns a pooled buffer; only once the work that used it on this lane has finished. */
  give(memory: Memory): void {
    this.pool.counted(-1, 0);
    if (this.#closed) return memory.close();
    const key = `${memory instanceof HostArray ? 'h' : 'd'}:${memory.dtype}:${memory.length}`;
    let list = this.#free.get(key);
    if (!list) this.#free.set(key, (list = []));
    list.push(memory);
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

  /** Frees the pooled memory (stream-ordered) and closes the streams, side streams too. */
  close(): void {
    this.#closed = true;
    for (const list of this.#free.values()) for (const memory of list) memory.close();
    this.#free.clear();
    for (const side of this.#sides.splice(0)) {
      side.stream.close();
      side.joined.close();
    }
    this.#fork?.close();
    this.stream.close();
  }

  #take(key: string, create: () => Memory): Memory {
    const reused = this.#free.get(key)?.pop();
    this.pool.counted(+1, reused ? 0 : 1);
    return reused ?? create();
  }
}

/**
 * Lanes of one device for {@link onStreams}: streams with memory pools, and the bound on values
 * in flight. One pool can serve one pipeline at a time.
 */
export class LanePool {
  /** The device the lanes' streams belong to. */
  readonly device: Device;
  /** The lanes, in round-robin order. */
  readonly lanes: readonly Lane[];
  /** The most values in flight at once. */
  readonly bound: number;
  /** The timeline the pool's pipelines record into, if any. */
  readonly timeline: Timeline | undefined;
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

  /** @internal Buffer bookkeeping. */
  counted(inUse: number, created: number): void {
    this.#inUse += inUse;
    this.#created += created;
  }

  /** Frees every lane's pooled memory and closes the streams. */
  close(): void {
    for (const lane of this.lanes) lane.close();
  }
}
