// Stream lanes for the reactive layer: a few streams on each of one or more devices, pools of
// device and pinned memory that they share, reused from value to value, and the bound on values
// in flight. The pool is a thin face over its options (pool-options.ts) and its engine
// (pool-engine.ts: its lanes, places in flight and buffers).
import type { DType } from '../../core/base/dtype.js';
import type { Device } from '../../core/api/device.js';
import type { Stream } from '../../core/api/stream.js';
import type { DeviceArray, HostArray } from '../../core/api/memory.js';
import { readPoolOptions, type DeviceFaultPolicy, type LanePoolOptions } from './pool-options.js';
import { PoolEngine, type LaneEngine, type LanePoolStats } from './pool-engine.js';
import type { Timeline } from '../timeline/timeline.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../../core/base/constructor-token.js';

export { DEFAULT_POOL_SPIN, MAX_IN_FLIGHT, MAX_LANES, type DeviceFaultPolicy, type LanePoolOptions } from './pool-options.js';
export type { LanePoolStats } from './pool-engine.js';
export type { SideStream } from './side-streams.js';

/**
 * The lane of `pool` over `engine`, made by the pool (the constructor stays private to users).
 */
export let makeLane: (pool: LanePool, engine: LaneEngine) => Lane;

/**
 * One stream of a pool. Its memory comes from the pool's free lists, which every lane shares (a
 * lane takes back its own first): a buffer goes back once the work that used it has finished.
 */
export class Lane {
  /** The lane's position in its pool. */
  readonly index: number;
  /** The stream values on this lane are enqueued on. */
  readonly stream: Stream;
  /** The pool the lane belongs to. */
  readonly pool: LanePool;
  /** @internal Its values in flight, memory and side streams (pool-engine.ts). */
  readonly engine: LaneEngine;

  static #make(pool: LanePool, engine: LaneEngine): Lane {
    return new Lane(CONSTRUCTOR_TOKEN, pool, engine);
  }

  private constructor(token: ConstructorToken, pool: LanePool, engine: LaneEngine) {
    checkConstructorToken(token, 'a Lane', 'new LanePool() (its lanes are pool.lanes)');
    this.pool = pool;
    this.engine = engine;
    this.index = engine.index;
    this.stream = engine.stream;
  }

  /** Values on this lane whose device work has not finished. */
  get inFlight(): number {
    return this.engine.inFlight;
  }

  /**
   * A device array from the pool (allocated, ordered on this lane's stream, when none is free).
   * @example
   * enqueue((w, stream) => {
   *   const scratch = w.lane.device('f32', n); // from the pool (w.device also returns it when the value is done)
   *   stream.launch(kernel, config, [w.buffers.input, scratch, n]);
   * })
   */
  device<D extends DType>(dtype: D, length: number): DeviceArray<D> {
    return this.engine.device(dtype, length);
  }

  /**
   * A pinned host array from the pool, pinned by this lane's device.
   * @example
   * enqueue((w, stream) => {
   *   const staging = w.lane.host('f32', n); // pinned, from the pool
   *   stream.copy(staging, w.buffers.output);
   * })
   */
  host<D extends DType>(dtype: D, length: number): HostArray<D> {
    return this.engine.host(dtype, length);
  }
  static {
    makeLane = (pool, engine) => Lane.#make(pool, engine);
  }
}

/**
 * Lanes of one or more devices for {@link onStreams}: streams with memory pools, and the bound on
 * values in flight. A value's work stays on its lane's device, its memory from that device's
 * pool; the bound holds for all the devices together. A pool outlives its pipelines: a pipeline
 * subscribed after another (even one unsubscribed with values still in flight) reuses its streams
 * and memory, and pipelines subscribed at once share the bound, taking freed places in turn.
 * @example
 * const pool = new LanePool(Device.all(), { lanesPerDevice: 2, inFlight: 8 });
 * frames$.pipe(onStreams(pool), upload((f) => f), launch(kernel, configure), download(...));
 */
export class LanePool {
  /** The first of {@link devices} (the only one of a pool of one device). */
  readonly device: Device;
  /** The devices the lanes' streams belong to, each with as many lanes. */
  readonly devices: readonly Device[];
  /** The lanes, by device; a value goes to the least loaded device's least loaded lane. */
  readonly lanes: readonly Lane[];
  /** The most values in flight at once, on all the devices together. */
  readonly bound: number;
  /** The timeline the pool's pipelines record into, if any. */
  readonly timeline: Timeline | undefined;
  /** Microseconds a native thread watches each value's completion for (see {@link LanePoolOptions.spin}). */
  readonly spin: number;
  /** What a device that breaks does to the pipeline. */
  readonly onDeviceFault: DeviceFaultPolicy;
  /** @internal Its places in flight, buffers and lanes' streams (pool-engine.ts). */
  readonly engine: PoolEngine;

  /**
   * @param devices a device, or the devices to spread values over (such as `Device.all()`).
   * @param options lanes per device, the in-flight bound, a timeline, and what a broken device does.
   * @throws TypeError or RangeError naming the bad argument (nothing is made then).
   */
  constructor(devices: Device | readonly Device[], options: LanePoolOptions = {}) {
    const engine = (this.engine = new PoolEngine(readPoolOptions(devices, options)));
    const settings = engine.settings;
    this.device = settings.devices[0]!;
    this.devices = settings.devices;
    this.bound = settings.bound;
    this.spin = settings.spin;
    this.onDeviceFault = settings.onDeviceFault;
    this.timeline = settings.timeline;
    this.lanes = engine.lanes.map((lane) => makeLane(this, lane));
  }

  /** The pool's counters now. */
  get stats(): LanePoolStats {
    return this.engine.stats();
  }

  /** Whether the pool is closed (by {@link close}, or a lane's stream closed behind its back): it takes no pipeline then. */
  get closed(): boolean {
    return this.engine.closed || this.lanes.some((lane) => lane.stream.closed);
  }

  /**
   * Values in flight on `device` now.
   * @example
   * for (const device of Device.all()) console.log(`${device}: ${pool.inFlightOn(device)} values in flight`);
   */
  inFlightOn(device: Device): number {
    return this.engine.places.on(device);
  }

  /**
   * Frees the pooled memory (behind the work that used it) and closes the streams.
   * @example
   * const pool = new LanePool(device, { lanes: 4 });
   * await lastValueFrom(a$.pipe(onStreams(pool), upload((v) => v.data), download(…)));
   * await lastValueFrom(b$.pipe(onStreams(pool), upload((v) => v.data), download(…))); // the same lanes and buffers
   * pool.close();
   */
  close(): void {
    this.engine.close();
  }
}
