// Stream lanes for the reactive layer: a few streams on each of one or more devices, pools of
// device and pinned memory that they share, reused from value to value, and the bound on values
// in flight. The pool is a thin face over its concerns: its options (pool-options.ts), its places
// in flight and turns (pool-places.ts) and its buffers (pool-buffers.ts).
import { checkDType, type DType } from '../../core/base/dtype.js';
import type { Device } from '../../core/device/device.js';
import type { Event } from '../../core/device/event.js';
import type { Stream } from '../../core/device/stream.js';
import { checkDeviceLength, checkHostLength, type DeviceArray, type HostArray, type Memory } from '../../core/memory/memory.js';
import type { PipelineError } from './pipeline-error.js';
import { Buffers } from './pool-buffers.js';
import { checkSameOptions, readPoolOptions, type DeviceFaultPolicy, type LanePoolOptions, type PoolSettings } from './pool-options.js';
import { Places, type LanePoolStats } from './pool-places.js';
import type { Timeline } from '../timeline/timeline.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../../core/base/constructor-token.js';
import { SideStreams, type SideStream } from './side-streams.js';

export { DEFAULT_POOL_SPIN, MAX_IN_FLIGHT, MAX_LANES, type DeviceFaultPolicy, type LanePoolOptions } from './pool-options.js';
export type { LanePoolStats } from './pool-places.js';
export type { SideStream } from './side-streams.js';

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
  /** The side streams by device, made on first use. */
  readonly #sideStreams = new SideStreams();
  /** Values started on this lane whose device work has not finished. */
  #inFlight = 0;

  /** @internal Made by its LanePool. */
  static make(pool: LanePool, index: number, stream: Stream): Lane {
    return new Lane(CONSTRUCTOR_TOKEN, pool, index, stream);
  }

  private constructor(token: ConstructorToken, pool: LanePool, index: number, stream: Stream) {
    checkConstructorToken(token, 'a Lane', 'new LanePool() (its lanes are pool.lanes)');
    this.pool = pool;
    this.index = index;
    this.stream = stream;
  }

  /** Values on this lane whose device work has not finished. */
  get inFlight(): number {
    return this.#inFlight;
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
    return this.pool.deviceArray(this.stream, dtype, length, this.index);
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
    return this.pool.host(dtype, length, this.stream.device, this.index);
  }

  /** @internal Returns a pooled buffer; only once the work that used it has finished. */
  give(memory: Memory): void {
    this.pool.give(memory, this.index);
  }

  /** @internal A value started (+1) or finished (-1) on this lane. */
  countInFlight(delta: 1 | -1): void {
    this.#inFlight += delta;
    this.pool.countInFlight(delta, this.stream.device);
  }

  /**
   * @internal `count` side streams of this lane, branch `i`'s on `devices[i]` (the lane's device
   * without them), and the event values fork from (see SideStreams.take).
   */
  sideStreams(count: number, devices?: readonly Device[]): { fork: Event; streams: SideStream[] } {
    return this.#sideStreams.take(this.stream.device, count, devices);
  }

  /** @internal Closes the stream and the side streams (the pool's `close()` does; see {@link LanePool.closed}). */
  close(): void {
    this.#sideStreams.close();
    this.stream.close();
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
  readonly #settings: PoolSettings;
  readonly #places: Places;
  readonly #buffers = new Buffers();
  #closed = false;

  /**
   * @param devices a device, or the devices to spread values over (such as `Device.all()`).
   * @param options lanes per device, the in-flight bound, a timeline, and what a broken device does.
   * @throws TypeError or RangeError naming the bad argument (nothing is made then).
   */
  constructor(devices: Device | readonly Device[], options: LanePoolOptions = {}) {
    const settings = (this.#settings = readPoolOptions(devices, options));
    for (const device of settings.devices) device.engine.checkUsable();
    this.device = settings.devices[0]!;
    this.devices = settings.devices;
    this.bound = settings.bound;
    this.spin = settings.spin;
    this.onDeviceFault = settings.onDeviceFault;
    this.timeline = settings.timeline;
    this.#places = new Places(settings.bound);
    const lanes: Lane[] = [];
    try {
      for (const device of settings.devices)
        for (let k = 0; k < settings.lanesPerDevice; k++) lanes.push(Lane.make(this, lanes.length, device.createStream({ nonBlocking: true })));
    } catch (error) {
      for (const lane of lanes) lane.close();
      throw error;
    }
    this.lanes = lanes;
  }

  /** The pool's counters now. */
  get stats(): LanePoolStats {
    const places = this.#places;
    let watched = 0, notified = 0, watchesGivenUp = 0;
    for (const { stream } of this.lanes) {
      const counts = stream.engine.valueCompletions;
      watched += counts.watched;
      notified += counts.notified;
      watchesGivenUp += counts.gaveUp;
    }
    return { inFlight: places.inFlight, maxInFlight: places.maxInFlight, buffersInUse: this.#buffers.inUse, buffersCreated: this.#buffers.created, watched, notified, watchesGivenUp };
  }

  /** Whether the pool is closed (by {@link close}, or a lane's stream closed behind its back): it takes no pipeline then. */
  get closed(): boolean {
    return this.#closed || this.lanes.some((lane) => lane.stream.closed);
  }

  /** @internal See checkSameOptions. */
  checkSame(options: LanePoolOptions): void {
    checkSameOptions(this.#settings, options);
  }

  /** @internal See Places.attach. */
  attach(onPlaceFree: () => void): { took(): void; detach(): void } {
    return this.#places.attach(onPlaceFree);
  }

  /** @internal Whether another value may start (places held for values on their way count). */
  get full(): boolean {
    return this.#places.full;
  }

  /** @internal Holds a free place for a value on its way; false when there is none. */
  reserve(): boolean {
    return this.#places.reserve();
  }

  /** @internal See Places.unreserve. */
  unreserve(taken: boolean): void {
    this.#places.unreserve(taken);
  }

  /**
   * Values in flight on `device` now.
   * @example
   * for (const device of Device.all()) console.log(`${device}: ${pool.inFlightOn(device)} values in flight`);
   */
  inFlightOn(device: Device): number {
    return this.#places.on(device);
  }

  /** @internal A value started (+1) or finished (-1) on `device`. */
  countInFlight(delta: 1 | -1, device: Device): void {
    this.#places.countInFlight(delta, device);
  }

  /**
   * @internal The lane the next value goes to: on the device with the fewest values in flight
   * (a broken device takes none), its lane with the fewest, the first such from `from` on (round
   * robin while the lanes keep pace with one another); undefined when every device is broken.
   */
  leastLoaded(from: number): Lane | undefined {
    const lanes = this.lanes;
    let best: Lane | undefined;
    let bestLoad = Infinity;
    for (let k = 0; k < lanes.length; k++) {
      const lane = lanes[(from + k) % lanes.length]!;
      const device = lane.stream.device;
      if (device.poisoned) continue;
      const load = this.inFlightOn(device);
      if (load < bestLoad || (load === bestLoad && lane.inFlight < best!.inFlight)) {
        best = lane;
        bestLoad = load;
      }
    }
    return best;
  }

  /**
   * @internal The error a failure of a value on `lane` errors the pipeline with, or undefined
   * when the pool's {@link onDeviceFault} function took it instead: the lane's device is broken
   * and another goes on. A value's failures reach the function once.
   */
  faultOf(lane: Lane, failure: PipelineError, first: boolean): unknown {
    const policy = this.onDeviceFault;
    if (policy === 'error' || !lane.stream.device.poisoned) return failure;
    if (this.devices.every((device) => device.poisoned)) return failure;
    if (!first) return undefined;
    try {
      policy(failure);
    } catch (thrown) {
      return thrown;
    }
    return undefined;
  }

  /** @internal A pinned host array from the pool, pinned by `device` (memory of no stream), for `lane` (its index) if given. */
  host<D extends DType>(dtype: D, length: number, device = this.usableDevice(), lane = -1): HostArray<D> {
    // Checked on every call, not only when one is allocated: a free buffer is found by them.
    checkDType('dtype', dtype);
    checkHostLength(dtype, length);
    return (this.#buffers.take(device, true, dtype, length, lane) ?? this.#buffers.made(device.allocHost(dtype, length))) as HostArray<D>;
  }

  /** @internal A device array from the pool, of `stream`'s device (allocated on it when none is free). */
  deviceArray<D extends DType>(stream: Stream, dtype: D, length: number, lane = -1): DeviceArray<D> {
    checkDType('dtype', dtype);
    checkDeviceLength(dtype, length);
    return (this.#buffers.take(stream.device, false, dtype, length, lane) ?? this.#buffers.made(stream.alloc(dtype, length))) as DeviceArray<D>;
  }

  /** @internal The first device that is not broken (the first device when all are). */
  usableDevice(): Device {
    const devices = this.devices;
    for (let i = 0; i < devices.length; i++) if (!devices[i]!.poisoned) return devices[i]!; // no iterator per value
    return this.device;
  }

  /** @internal Takes back a buffer whose work has finished, from `lane` (its index) if given (frees it once the pool is closed). */
  give(memory: Memory, lane = -1): void {
    this.#buffers.give(memory, this.#closed, lane);
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
    this.#closed = true;
    this.#buffers.close();
    for (const lane of this.lanes) {
      try {
        lane.close();
      } catch {}
    }
  }
}
