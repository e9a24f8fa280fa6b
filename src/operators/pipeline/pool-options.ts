// What a LanePool is made with: its devices and options, checked once when it is made, and the
// check that options given beside a pool to an operator are the pool's own.
import { Device } from '../../core/api/device.js';
import { checkSpin } from '../../core/device/spin-wait.js';
import { describe, elementsOf, isArray, isInstance, rangeError, received, typeError } from '../../core/base/errors.js';
import { checkOptions } from '../../core/base/options.js';
import type { PipelineError } from './pipeline-error.js';
import { Timeline } from '../timeline/timeline.js';

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
   * upstream. At most {@link MAX_IN_FLIGHT}.
   * @default twice the lanes of all the devices (at most {@link MAX_IN_FLIGHT})
   */
  readonly inFlight?: number;
  /** Records each value's stages, to look at the lanes overlapping. */
  readonly timeline?: Timeline;
  /**
   * Microseconds for which a native thread watches each value's completion on a GPU (an event the
   * lane records, which the thread queries) before a completion point behind that event takes
   * over, as `stream.synchronized({ spin })` does for one wait. Watching costs the main thread one
   * driver call per value, and one CPU core of the watcher's, busy while values are in flight
   * (and briefly after). With 0 every value's completion comes through the driver's host callback
   * instead, behind an event on the lane's notifier stream: no core is kept busy, and each value
   * costs the main thread three driver calls and the completion some latency, which small values
   * pay for in throughput (docs/performance.md, "Small values", gives the figures). A watch
   * that gives up (a value that outlasted `spin`, counted from when it was given to its lane) makes
   * the lane notify its next 32 values instead, twice as many after each further give-up (up to
   * 1024), each count followed by one watch at a time until one sees its value, so that long
   * values pay for a watch or a notification, not both. On the host device it changes nothing.
   * @default 1000 ({@link DEFAULT_POOL_SPIN})
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
  // Each element read once (a getter may answer differently each time), a hole as undefined
  // (every() skips holes): what is checked is what is kept.
  const read = isArray(list) ? elementsOf(list) : undefined;
  if (read === undefined || read.length === 0 || !read.every((d) => isInstance(d, Device))) typeError('devices', what, read ?? devices);
  const devicesList = read as readonly Device[];
  if (new Set(devicesList).size !== devicesList.length) rangeError('devices', what, received(`${devicesList.join(', ')} (a device twice)`));
  if (devicesList.some((d) => d.engine.backend !== devicesList[0]!.engine.backend)) rangeError('devices', what, received(devicesList.join(', ')));
  return Object.freeze(devicesList);
}

/**
 * The most lanes a pool has on a device. A GPU runs the work of at most 32 streams side by side
 * (its hardware queues); far more lanes only cost streams, so a larger number is taken for a
 * mistake.
 */
export const MAX_LANES = 1024;

/**
 * The most values a pool lets be in flight at once: each holds its pooled memory (and on a GPU
 * an event) until its work is done. Far more than lanes can overlap, so a larger number is taken
 * for a mistake.
 */
export const MAX_IN_FLIGHT = 65_536;

/**
 * `value`, an integer in `min..max`, for the numbers that size a pool's or an operator's streams
 * and memory; else a TypeError (not a number) or a RangeError (a number outside, or not an
 * integer) that names `name` and the bound.
 */
export function checkBounded(name: string, value: unknown, max: number, min = 1): number {
  if (typeof value !== 'number') typeError(name, `an integer in ${min}..${max}`, value);
  if (!Number.isInteger(value) || value < min || value > max) rangeError(name, `an integer in ${min}..${max}`, value);
  return value;
}

/** A pool's options as it keeps them: checked, with their defaults. */
export interface PoolSettings {
  readonly devices: readonly Device[];
  readonly lanesPerDevice: number;
  readonly bound: number;
  readonly spin: number;
  readonly timeline: Timeline | undefined;
  readonly onDeviceFault: DeviceFaultPolicy;
}

/**
 * A lane pool's `spin` when none is given, in µs: long enough that the watcher sees the completion
 * of a small value, even one queued behind another on its lane. A lane whose values outlast it
 * has most of them notified instead (see {@link LanePoolOptions.spin}), so the core is seldom busy
 * for long values.
 */
export const DEFAULT_POOL_SPIN = 1000;

/** The options a lane pool takes (see {@link LanePoolOptions}). */
export const LANE_POOL_OPTIONS: readonly string[] = ['inFlight', 'lanes', 'lanesPerDevice', 'onDeviceFault', 'spin', 'timeline'];

/**
 * The settings of a pool of `devices` with `options`.
 * @throws TypeError or RangeError naming the bad argument.
 */
export function readPoolOptions(devices: unknown, options: LanePoolOptions): PoolSettings {
  const list = checkDevices(devices);
  checkOptions('options', options, LANE_POOL_OPTIONS);
  // Each option read once, and what was read is what is checked and kept (a getter may answer
  // differently each time).
  const { lanes, lanesPerDevice: perDevice, inFlight, spin: spinGiven, timeline, onDeviceFault = 'error' } = options;
  const lanesGiven = lanes === undefined ? undefined : checkBounded('lanes', lanes, MAX_LANES);
  const lanesPerDevice = perDevice === undefined ? (lanesGiven ?? 2) : checkBounded('lanesPerDevice', perDevice, MAX_LANES);
  if (lanesGiven !== undefined && perDevice !== undefined && lanesGiven !== lanesPerDevice)
    rangeError('lanesPerDevice', `\`lanes\` (${lanesGiven}) or left out`, lanesPerDevice);
  const bound = inFlight === undefined ? Math.min(list.length * lanesPerDevice * 2, MAX_IN_FLIGHT) : checkBounded('inFlight', inFlight, MAX_IN_FLIGHT);
  const spin = spinGiven === undefined ? DEFAULT_POOL_SPIN : checkSpin('spin', spinGiven);
  if (timeline !== undefined && !isInstance(timeline, Timeline)) typeError('timeline', 'a Timeline', timeline);
  if (onDeviceFault !== 'error' && typeof onDeviceFault !== 'function') typeError('onDeviceFault', "'error' or a function", onDeviceFault);
  return { devices: list, lanesPerDevice, bound, spin, timeline, onDeviceFault };
}

/**
 * Throws a RangeError naming the first of `options` (given beside a pool to `onStreams`,
 * `lanesFrom` or `framesFrom`) that differs from the pool's own `settings`: those are fixed when
 * the pool is made.
 */
export function checkSameOptions(settings: PoolSettings, options: LanePoolOptions): void {
  const own: { readonly [K in keyof LanePoolOptions]-?: unknown } = {
    lanes: settings.lanesPerDevice,
    lanesPerDevice: settings.lanesPerDevice,
    inFlight: settings.bound,
    spin: settings.spin,
    timeline: settings.timeline,
    onDeviceFault: settings.onDeviceFault,
  };
  for (const [name, value] of Object.entries(own)) {
    const given: unknown = options[name as keyof LanePoolOptions];
    if (given !== undefined && given !== value)
      rangeError(name, `left out or the pool's own (${describe(value)}): a LanePool's options are given to \`new LanePool\``, given);
  }
}
