// What a lane pool does below its public face (LanePool and Lane, lane-pool.ts): the lanes' streams,
// side streams and values in flight, the pool's buffers (pool-buffers.ts) and its places in flight,
// counted per device, with the turns in which pipelines sharing the pool take freed places.
import { checkDType, type DType } from '../../core/base/dtype.js';
import type { Device } from '../../core/api/device.js';
import type { Event } from '../../core/api/event.js';
import type { Stream } from '../../core/api/stream.js';
import { checkDeviceLength, checkHostLength, type DeviceArray, type HostArray, type Memory } from '../../core/api/memory.js';
import type { PipelineError } from './pipeline-error.js';
import { Buffers } from './pool-buffers.js';
import { checkSameOptions, type LanePoolOptions, type PoolSettings } from './pool-options.js';
import { SideStreams, type SideStream } from './side-streams.js';

/** What one lane of a pool does: its stream's values in flight, its memory and side streams. */
export class LaneEngine {
  /** The lane's position in its pool. */
  readonly index: number;
  readonly stream: Stream;
  readonly pool: PoolEngine;
  /** The side streams by device, made on first use. */
  readonly #sideStreams = new SideStreams();
  /** Values started on this lane whose device work has not finished. */
  #inFlight = 0;

  constructor(pool: PoolEngine, index: number, stream: Stream) {
    this.pool = pool;
    this.index = index;
    this.stream = stream;
  }

  /** Values on this lane whose device work has not finished. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** A device array from the pool, ordered on this lane's stream (see PoolEngine.deviceArray). */
  device<D extends DType>(dtype: D, length: number): DeviceArray<D> {
    return this.pool.deviceArray(this.stream, dtype, length, this.index);
  }

  /** A pinned host array from the pool, pinned by this lane's device. */
  host<D extends DType>(dtype: D, length: number): HostArray<D> {
    return this.pool.host(dtype, length, this.stream.device, this.index);
  }

  /** Returns a pooled buffer; only once the work that used it has finished. */
  give(memory: Memory): void {
    this.pool.give(memory, this.index);
  }

  /** A value started (+1) or finished (-1) on this lane. */
  countInFlight(delta: 1 | -1): void {
    this.#inFlight += delta;
    this.pool.countInFlight(delta, this.stream.device);
  }

  /**
   * `count` side streams of this lane, branch `i`'s on `devices[i]` (the lane's device without
   * them), and the event values fork from (see SideStreams.take).
   */
  sideStreams(count: number, devices?: readonly Device[]): { fork: Event; streams: SideStream[] } {
    return this.#sideStreams.take(this.stream.device, count, devices);
  }

  /** Closes the stream and the side streams (the pool's `close()` does; see LanePool.closed). */
  close(): void {
    this.#sideStreams.close();
    this.stream.close();
  }
}

/** What a pool does: its lanes, places in flight and buffers, made from its checked settings. */
export class PoolEngine {
  readonly settings: PoolSettings;
  /** The lanes, by device, each with as many. */
  readonly lanes: readonly LaneEngine[];
  readonly places: Places;
  readonly buffers = new Buffers();
  #closed = false;

  /** Checks that the devices are usable, then makes the lanes' streams (closed again if one fails). */
  constructor(settings: PoolSettings) {
    this.settings = settings;
    for (const device of settings.devices) device.engine.checkUsable();
    this.places = new Places(settings.bound);
    const lanes: LaneEngine[] = [];
    try {
      for (const device of settings.devices)
        for (let k = 0; k < settings.lanesPerDevice; k++) lanes.push(new LaneEngine(this, lanes.length, device.createStream({ nonBlocking: true })));
    } catch (error) {
      for (const lane of lanes) lane.close();
      throw error;
    }
    this.lanes = lanes;
  }

  /** Whether {@link close} has run (the pool's `closed` also tells of a lane's stream closed behind its back). */
  get closed(): boolean {
    return this.#closed;
  }

  /** The pool's counters now. */
  stats(): LanePoolStats {
    const places = this.places;
    let watched = 0, notified = 0, watchesGivenUp = 0;
    for (const { stream } of this.lanes) {
      const counts = stream.engine.valueCompletions;
      watched += counts.watched;
      notified += counts.notified;
      watchesGivenUp += counts.gaveUp;
    }
    return { inFlight: places.inFlight, maxInFlight: places.maxInFlight, buffersInUse: this.buffers.inUse, buffersCreated: this.buffers.created, watched, notified, watchesGivenUp };
  }

  /** See checkSameOptions. */
  checkSame(options: LanePoolOptions): void {
    checkSameOptions(this.settings, options);
  }

  /** See Places.attach. */
  attach(onPlaceFree: () => void): { took(): void; detach(): void } {
    return this.places.attach(onPlaceFree);
  }

  /** Whether another value may start (places held for values on their way count). */
  get full(): boolean {
    return this.places.full;
  }

  /** Holds a free place for a value on its way; false when there is none. */
  reserve(): boolean {
    return this.places.reserve();
  }

  /** See Places.unreserve. */
  unreserve(taken: boolean): void {
    this.places.unreserve(taken);
  }

  /** A value started (+1) or finished (-1) on `device`. */
  countInFlight(delta: 1 | -1, device: Device): void {
    this.places.countInFlight(delta, device);
  }

  /**
   * The lane the next value goes to: on the device with the fewest values in flight (a broken
   * device takes none), its lane with the fewest, the first such from `from` on (round robin while
   * the lanes keep pace with one another); undefined when every device is broken.
   */
  leastLoaded(from: number): LaneEngine | undefined {
    const lanes = this.lanes;
    let best: LaneEngine | undefined;
    let bestLoad = Infinity;
    for (let k = 0; k < lanes.length; k++) {
      const lane = lanes[(from + k) % lanes.length]!;
      const device = lane.stream.device;
      if (device.poisoned) continue;
      const load = this.places.on(device);
      if (load < bestLoad || (load === bestLoad && lane.inFlight < best!.inFlight)) {
        best = lane;
        bestLoad = load;
      }
    }
    return best;
  }

  /**
   * The error a failure of a value on `lane` errors the pipeline with, or undefined when the
   * pool's `onDeviceFault` function took it instead: the lane's device is broken and another goes
   * on. A value's failures reach the function once.
   */
  faultOf(lane: LaneEngine, failure: PipelineError, first: boolean): unknown {
    const policy = this.settings.onDeviceFault;
    if (policy === 'error' || !lane.stream.device.poisoned) return failure;
    if (this.settings.devices.every((device) => device.poisoned)) return failure;
    if (!first) return undefined;
    try {
      policy(failure);
    } catch (thrown) {
      return thrown;
    }
    return undefined;
  }

  /** A pinned host array from the pool, pinned by `device` (memory of no stream), for `lane` (its index) if given. */
  host<D extends DType>(dtype: D, length: number, device = this.usableDevice(), lane = -1): HostArray<D> {
    // Checked on every call, not only when one is allocated: a free buffer is found by them.
    checkDType('dtype', dtype);
    checkHostLength(dtype, length);
    return (this.buffers.take(device, true, dtype, length, lane) ?? this.buffers.made(device.allocHost(dtype, length))) as HostArray<D>;
  }

  /** A device array from the pool, of `stream`'s device (allocated on it when none is free). */
  deviceArray<D extends DType>(stream: Stream, dtype: D, length: number, lane = -1): DeviceArray<D> {
    checkDType('dtype', dtype);
    checkDeviceLength(dtype, length);
    return (this.buffers.take(stream.device, false, dtype, length, lane) ?? this.buffers.made(stream.alloc(dtype, length))) as DeviceArray<D>;
  }

  /** The first device that is not broken (the first device when all are). */
  usableDevice(): Device {
    const devices = this.settings.devices;
    for (let i = 0; i < devices.length; i++) if (!devices[i]!.poisoned) return devices[i]!; // no iterator per value
    return devices[0]!;
  }

  /** Takes back a buffer whose work has finished, from `lane` (its index) if given (frees it once the pool is closed). */
  give(memory: Memory, lane = -1): void {
    this.buffers.give(memory, this.#closed, lane);
  }

  /** Frees the pooled memory (behind the work that used it) and closes the streams. */
  close(): void {
    this.#closed = true;
    this.buffers.close();
    for (const lane of this.lanes) {
      try {
        lane.close();
      } catch {}
    }
  }
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
  /** Values whose completion the native watcher was given (on a GPU, by the pool's `spin`). */
  readonly watched: number;
  /** Values whose completion came through a host callback (`spin: 0`, the host device, or after a give-up). */
  readonly notified: number;
  /** Watches that gave up (a value outlasted `spin`): each makes its lane notify the next values. */
  readonly watchesGivenUp: number;
}

/** The in-flight places of one pool. */
export class Places {
  readonly #bound: number;
  /** The pipelines on the pool, each called when a value finishes and another may start. */
  readonly #pipelines: (() => void)[] = [];
  /** The pipeline that started a value last: a freed place is offered to the one after it first. */
  #last: (() => void) | undefined;
  /** Values in flight per device. */
  readonly #perDevice = new Map<Device, number>();
  /** Places held for values on their way (pulled from a source that answers later). */
  #reserved = 0;
  #inFlight = 0;
  #maxInFlight = 0;

  constructor(bound: number) {
    this.#bound = bound;
  }

  /** Values in flight now, and the most ever in flight at once. */
  get inFlight(): number {
    return this.#inFlight;
  }

  get maxInFlight(): number {
    return this.#maxInFlight;
  }

  /** Whether no further value may start (places held for values on their way count). */
  get full(): boolean {
    return this.#inFlight + this.#reserved >= this.#bound;
  }

  /** Values in flight on `device` now. */
  on(device: Device): number {
    return this.#perDevice.get(device) ?? 0;
  }

  /**
   * Calls `onPlaceFree` whenever a value finishes and another may start, until `detach`: every
   * pipeline on the pool hears of every freed place. The pipeline calls `took` when it starts a
   * value, which passes the turn to the pipeline after it.
   */
  attach(onPlaceFree: () => void): { took(): void; detach(): void } {
    const pipelines = this.#pipelines;
    pipelines.push(onPlaceFree);
    return {
      took: () => {
        this.#last = onPlaceFree;
      },
      detach: () => {
        const at = pipelines.indexOf(onPlaceFree);
        if (at >= 0) pipelines.splice(at, 1);
      },
    };
  }

  /** Holds a free place for a value on its way; false when there is none. */
  reserve(): boolean {
    if (this.full) return false;
    this.#reserved++;
    return true;
  }

  /**
   * Gives back a place {@link reserve} held: `taken`, the value it was held for starts in it now;
   * else the place is free again and offered to the pipelines.
   */
  unreserve(taken: boolean): void {
    this.#reserved--;
    if (!taken) this.#offer();
  }

  /** A value started (+1) or finished (-1) on `device`. */
  countInFlight(delta: 1 | -1, device: Device): void {
    this.#inFlight += delta;
    this.#maxInFlight = Math.max(this.#maxInFlight, this.#inFlight);
    this.#perDevice.set(device, this.on(device) + delta);
    if (delta < 0) this.#offer();
  }

  /**
   * Offers freed places to the pipelines while places are free, from the one whose turn it is
   * (the one after the last that started a value), so that pipelines take turns whether or not
   * the others have values waiting.
   */
  #offer(): void {
    const pipelines = this.#pipelines;
    if (pipelines.length === 1) return pipelines[0]!();
    const offered = [...pipelines]; // the list as it is now: pipelines may stop meanwhile
    const from = (offered.indexOf(this.#last!) + 1) % offered.length; // the first when it has stopped
    for (let k = 0; k < offered.length && !this.full; k++) {
      const pipeline = offered[(from + k) % offered.length]!;
      if (pipelines.includes(pipeline)) pipeline(); // unless it stopped since
    }
  }
}
