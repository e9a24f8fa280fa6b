// Stream lanes for the reactive layer: a few streams on each of one or more devices, pools of
// device and pinned memory that they share, reused from value to value, and the bound on values
// in flight.
import type { DType } from '../../core/base/dtype.js';
import { Device } from '../../core/device/device.js';
import { checkSpin } from '../../core/device/spin-wait.js';
import { checkOptions, describe, isArray, isInstance, rangeError, received, typeError } from '../../core/base/errors.js';
import { HostArray, type DeviceArray, type Memory } from '../../core/memory/memory.js';
import type { Event } from '../../core/device/event.js';
import type { Stream } from '../../core/device/stream.js';
import { Timeline } from './timeline.js';
import type { PipelineError } from './work.js';

/** @internal A side stream of a lane, for `fanOut`, with the event its branch is joined through. */
export interface SideStream {
  readonly stream: Stream;
  readonly joined: Event;
}

/**
 * What a pipeline over several devices does when one of them breaks (a sticky error: an illegal
 * address, a launch failure): `'error'` errors the pipeline with the first value that fails; a
 * function is given a {@link PipelineError} for each value of the broken device (its `cause` is
 * the device's `CudaError`) in place of the value, while the other devices' lanes go on with the
 * rest. With every device broken, the pipeline errors.
 */
export type DeviceFaultPolicy = 'error' | ((failure: PipelineError) => void);

/** Options for {@link LanePool}. */
export interface LanePoolOptions {
  /**
   * Streams on each device, which values are spread over: each value goes to the least loaded
   * device (the fewest values in flight), and there to the lane with the fewest values in
   * flight (round robin among equals). At most {@link MAX_LANES}.
   * @default 2
   */
  readonly lanes?: number;
  /** {@link lanes}, by the name that says so over several devices; give one of the two. */
  readonly lanesPerDevice?: number;
  /**
   * Values whose device work may be in flight at once, on all the devices together; more wait
   * upstream.
   * @default twice the lanes of all the devices
   */
  readonly inFlight?: number;
  /** Records each value's stages, to look at the lanes overlapping. */
  readonly timeline?: Timeline;
  /**
   * Microseconds for which a native thread watches each value's completion on a GPU (an event the
   * lane records, which the thread queries) before the ordinary completion point takes over, as
   * `stream.synchronized({ spin })` does for one wait. With 0 every value's completion comes
   * through the driver's host callback, which costs a copy-bound pipeline 1 to 2 percent of its
   * throughput (README, "Getting frames in and out fast"); watching takes that back, and costs one CPU
   * core, busy while values are in flight. On the host device it changes nothing.
   * @default 0
   */
  readonly spin?: number;
  /**
   * What happens to the values of a device that breaks while others go on.
   * @default 'error'
   */
  readonly onDeviceFault?: DeviceFaultPolicy;
}

/** The devices given to a {@link LanePool}, checked: one or more distinct devices of one backend. */
function checkDevices(devices: unknown): readonly Device[] {
  const list = isInstance(devices, Device) ? [devices] : devices;
  const what = 'a Device or a non-empty array of distinct Devices of one backend';
  if (!isArray(list) || list.length === 0 || !list.every((d) => isInstance(d, Device))) typeError('devices', what, devices);
  const devicesList = list as readonly Device[];
  if (new Set(devicesList).size !== devicesList.length) rangeError('devices', what, received(`${devicesList.join(', ')} (a device twice)`));
  if (devicesList.some((d) => d.backend !== devicesList[0]!.backend)) rangeError('devices', what, received(devicesList.join(', ')));
  return Object.freeze([...devicesList]);
}

/**
 * The most lanes a pool has on a device. A GPU runs the work of at most 32 streams side by side
 * (its hardware queues); far more lanes only cost streams, so a larger number is taken for a
 * mistake.
 */
export const MAX_LANES = 1024;

/** A positive integer option of at most `max`, or its default. */
function positive(name: string, value: unknown, fallback: number, max = Infinity): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max)
    rangeError(name, max === Infinity ? 'a positive integer' : `an integer in 1..${max}`, value);
  return value;
}

/** The key of pooled memory: its kind, device, element type and length. */
function keyOf(host: boolean, device: Device, dtype: DType, length: number): string {
  return `${host ? 'h' : 'd'}:${String(device)}:${dtype}:${length}`;
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
  /** Side streams by device, made on first use. */
  readonly #sides = new Map<Device, SideStream[]>();
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
    return this.pool.deviceArray(this.stream, dtype, length);
  }

  /** A pinned host array from the pool, pinned by this lane's device. */
  host<D extends DType>(dtype: D, length: number): HostArray<D> {
    return this.pool.host(dtype, length, this.stream.device);
  }

  /** Returns a pooled buffer; only once the work that used it has finished. */
  give(memory: Memory): void {
    this.pool.give(memory);
  }

  /** @internal A value started (+1) or finished (-1) on this lane. */
  flight(delta: 1 | -1): void {
    this.#inFlight += delta;
    this.pool.flight(delta, this.stream.device);
  }

  /**
   * @internal `count` side streams of this lane, branch `i`'s on `devices[i]` (the lane's device
   * without them), and the event values fork from, made on first use and reused: recording an
   * event again does not disturb waits already enqueued.
   */
  sides(count: number, devices?: readonly Device[]): { fork: Event; sides: SideStream[] } {
    const own = this.stream.device;
    const taken = new Map<Device, number>();
    const sides = Array.from({ length: count }, (_, i) => {
      const device = devices?.[i] ?? own;
      const k = taken.get(device) ?? 0;
      taken.set(device, k + 1);
      let list = this.#sides.get(device);
      if (!list) this.#sides.set(device, (list = []));
      while (list.length <= k) list.push({ stream: device.createStream({ nonBlocking: true }), joined: device.createEvent() });
      return list[k]!;
    });
    return { fork: (this.#fork ??= own.createEvent()), sides };
  }

  /** Closes the stream and the side streams. */
  close(): void {
    for (const side of [...this.#sides.values()].flat()) {
      side.stream.close();
      side.joined.close();
    }
    this.#sides.clear();
    this.#fork?.close();
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
  readonly #free = new Map<string, Memory[]>();
  /** Values in flight per device. */
  readonly #perDevice = new Map<Device, number>();
  #closed = false;
  /** The pipelines on the pool, each called when a value finishes and another may start. */
  readonly #pipelines: (() => void)[] = [];
  /** The pipeline that started a value last: a freed place is offered to the one after it first. */
  #last: (() => void) | undefined;
  /** Places held for values on their way (pulled from a source that answers later). */
  #reserved = 0;
  #inFlight = 0;
  #maxInFlight = 0;
  #inUse = 0;
  #created = 0;

  /**
   * @param devices a device, or the devices to spread values over (such as `Device.all()`).
   * @param options lanes per device, the in-flight bound, a timeline, and what a broken device does.
   * @throws TypeError or RangeError naming the bad argument (nothing is made then).
   */
  constructor(devices: Device | readonly Device[], options: LanePoolOptions = {}) {
    const list = checkDevices(devices);
    checkOptions('options', options);
    const perDevice = positive('lanesPerDevice', options.lanesPerDevice, positive('lanes', options.lanes, 2, MAX_LANES), MAX_LANES);
    if (options.lanes !== undefined && options.lanesPerDevice !== undefined && options.lanes !== perDevice)
      rangeError('lanesPerDevice', `\`lanes\` (${options.lanes}) or left out`, perDevice);
    this.bound = positive('inFlight', options.inFlight, list.length * perDevice * 2);
    this.spin = options.spin === undefined ? 0 : checkSpin('spin', options.spin);
    if (options.timeline !== undefined && !isInstance(options.timeline, Timeline)) typeError('timeline', 'a Timeline', options.timeline);
    const { onDeviceFault = 'error' } = options;
    if (onDeviceFault !== 'error' && typeof onDeviceFault !== 'function') typeError('onDeviceFault', "'error' or a function", onDeviceFault);
    for (const device of list) device.checkUsable();
    this.device = list[0]!;
    this.devices = list;
    this.onDeviceFault = onDeviceFault;
    this.timeline = options.timeline;
    const lanes: Lane[] = [];
    try {
      for (const device of list)
        for (let k = 0; k < perDevice; k++) lanes.push(new Lane(this, lanes.length, device.createStream({ nonBlocking: true })));
    } catch (error) {
      for (const lane of lanes) lane.close();
      throw error;
    }
    this.lanes = lanes;
  }

  /** The pool's counters now. */
  get stats(): LanePoolStats {
    return { inFlight: this.#inFlight, maxInFlight: this.#maxInFlight, buffersInUse: this.#inUse, buffersCreated: this.#created };
  }

  /** Whether {@link close} was called: a closed pool takes no pipeline. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * @internal Throws a RangeError naming the first of `options` (given beside this pool to
   * `onStreams`, `lanesFrom` or `framesFrom`) that differs from the pool's own: those are fixed
   * when the pool is made.
   */
  checkSame(options: LanePoolOptions): void {
    const own: { readonly [K in keyof LanePoolOptions]-?: unknown } = {
      lanes: this.lanes.length / this.devices.length,
      lanesPerDevice: this.lanes.length / this.devices.length,
      inFlight: this.bound,
      spin: this.spin,
      timeline: this.timeline,
      onDeviceFault: this.onDeviceFault,
    };
    for (const [name, value] of Object.entries(own)) {
      const given: unknown = options[name as keyof LanePoolOptions];
      if (given !== undefined && given !== value)
        rangeError(name, `left out or the pool's own (${describe(value)}): a LanePool's options are given to \`new LanePool\``, given);
    }
  }

  /**
   * @internal Calls `onSlot` whenever a value on the pool finishes and another may start, until
   * `detach`: every pipeline on the pool hears of every freed place. The pipeline calls `took`
   * when it starts a value, which passes the turn to the pipeline after it.
   */
  attach(onSlot: () => void): { took(): void; detach(): void } {
    const pipelines = this.#pipelines;
    pipelines.push(onSlot);
    return {
      took: () => {
        this.#last = onSlot;
      },
      detach: () => {
        const at = pipelines.indexOf(onSlot);
        if (at >= 0) pipelines.splice(at, 1);
      },
    };
  }

  /** @internal Whether another value may start (places held for values on their way count). */
  get full(): boolean {
    return this.#inFlight + this.#reserved >= this.bound;
  }

  /** @internal Holds a free place for a value on its way; false when there is none. */
  reserve(): boolean {
    if (this.full) return false;
    this.#reserved++;
    return true;
  }

  /**
   * @internal Gives back a place {@link reserve} held: `taken`, the value it was held for starts
   * in it now; else the place is free again and offered to the pool's pipelines.
   */
  unreserve(taken: boolean): void {
    this.#reserved--;
    if (!taken) this.#offerPlace();
  }

  /** Values in flight on `device` now. */
  inFlightOn(device: Device): number {
    return this.#perDevice.get(device) ?? 0;
  }

  /** @internal A value started (+1) or finished (-1) on `device`. */
  flight(delta: 1 | -1, device: Device): void {
    this.#inFlight += delta;
    this.#maxInFlight = Math.max(this.#maxInFlight, this.#inFlight);
    this.#perDevice.set(device, this.inFlightOn(device) + delta);
    if (delta < 0) this.#offerPlace();
  }

  /**
   * Offers freed places to the pipelines while places are free, from the one whose turn it is
   * (the one after the last that started a value), so that pipelines take turns whether or not
   * the others have values waiting.
   */
  #offerPlace(): void {
    const pipelines = this.#pipelines;
    if (pipelines.length === 1) return pipelines[0]!();
    const offered = [...pipelines]; // the list as it is now: pipelines may stop meanwhile
    const from = (offered.indexOf(this.#last!) + 1) % offered.length; // the first when it has stopped
    for (let k = 0; k < offered.length && !this.full; k++) {
      const pipeline = offered[(from + k) % offered.length]!;
      if (pipelines.includes(pipeline)) pipeline(); // unless it stopped since
    }
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

  /** @internal A pinned host array from the pool, pinned by `device` (memory of no stream). */
  host<D extends DType>(dtype: D, length: number, device = this.usableDevice()): HostArray<D> {
    return this.take(keyOf(true, device, dtype, length), () => device.allocHost(dtype, length)) as HostArray<D>;
  }

  /** @internal A device array from the pool, of `stream`'s device (allocated on it when none is free). */
  deviceArray<D extends DType>(stream: Stream, dtype: D, length: number): DeviceArray<D> {
    return this.take(keyOf(false, stream.device, dtype, length), () => stream.alloc(dtype, length)) as DeviceArray<D>;
  }

  /** @internal The first device that is not broken (the first device when all are). */
  usableDevice(): Device {
    return this.devices.find((device) => !device.poisoned) ?? this.device;
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
    const key = keyOf(memory instanceof HostArray, memory.device, memory.dtype, memory.length);
    let list = this.#free.get(key);
    if (!list) this.#free.set(key, (list = []));
    list.push(memory);
  }

  /** Frees the pooled memory (behind the work that used it) and closes the streams. */
  close(): void {
    this.#closed = true;
    // Their work has finished: pinned blocks go back for reuse at once (see pinned-cache.ts).
    // A broken device's memory and streams go with its context: its frees fail and are let be.
    for (const list of this.#free.values())
      for (const memory of list) {
        try {
          memory.closeIdle();
        } catch {}
      }
    this.#free.clear();
    for (const lane of this.lanes) {
      try {
        lane.close();
      } catch {}
    }
  }
}
