// Launch configurations: grid, block, dynamic shared memory, cluster and cooperative launch,
// checked once and kept as the header words the native launch reads.
import { brand, describe, elementsOf, isArray, isInstance, rangeError, typeError } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import type { DeviceEngine } from '../device/device-engine.js';
import type { KernelAttributes } from '../native/facts.js';
import { LAUNCH_BLOCK } from '../native/launch-block.js';

/** A 1-, 2- or 3-dimensional extent; missing dimensions are 1. */
export type Dim3 = number | readonly [number] | readonly [number, number] | readonly [number, number, number];

/** What a launch needs besides the kernel and its arguments. */
export interface LaunchOptions {
  /** Blocks in the grid. */
  readonly grid: Dim3;
  /** Threads in a block. */
  readonly block: Dim3;
  /**
   * Dynamic shared memory per block, in bytes.
   * @default 0
   */
  readonly sharedMem?: number;
  /** Blocks per thread-block cluster (compute capability 9.0 and newer). */
  readonly cluster?: Dim3;
  /**
   * Launch as a cooperative kernel (grid-wide synchronization).
   * @default false
   */
  readonly cooperative?: boolean;
}

/** The options {@link LaunchOptions} declares. */
const LAUNCH_OPTIONS: readonly string[] = ['block', 'cluster', 'cooperative', 'grid', 'sharedMem'];

const { flagCooperative: FLAG_COOPERATIVE, flagCluster: FLAG_CLUSTER } = LAUNCH_BLOCK;

type Shape = readonly [number, number, number];

/** The configuration's words of a launch block's header, where the layout puts each. */
function headerWords(grid: Shape, block: Shape, sharedMem: number, flags: number, cluster: Shape | undefined): Uint32Array {
  const words = new Uint32Array(LAUNCH_BLOCK.configWords);
  words.set(grid, LAUNCH_BLOCK.gridWord);
  words.set(block, LAUNCH_BLOCK.blockWord);
  words[LAUNCH_BLOCK.sharedMemWord] = sharedMem;
  words[LAUNCH_BLOCK.flagsWord] = flags;
  if (cluster) words.set(cluster, LAUNCH_BLOCK.clusterWord);
  return words;
}

function dim3(name: string, value: unknown, optional: boolean): readonly [number, number, number] | undefined {
  if (value === undefined && optional) return undefined;
  const given = typeof value === 'number' ? [value] : value;
  if (!isArray(given) || given.length < 1 || given.length > 3)
    typeError(name, 'a positive integer or an array of 1 to 3 positive integers', value);
  const dims = elementsOf(given); // read once, holes as undefined: what is checked is what is used
  if (!dims.every((d) => typeof d === 'number' && Number.isInteger(d)))
    typeError(name, 'positive integers', value);
  if (!(dims as number[]).every((d) => d >= 1 && d <= 0xffff_ffff)) rangeError(name, 'positive integers', value);
  return Object.freeze([dims[0], dims[1] ?? 1, dims[2] ?? 1]) as readonly [number, number, number];
}

/** Whether `value`, as given in launch options, is the extent `dims` (undefined matching undefined). */
function sameDims(value: unknown, dims: readonly [number, number, number] | undefined): boolean {
  if (dims === undefined) return value === undefined;
  if (typeof value === 'number') return value === dims[0] && dims[1] === 1 && dims[2] === 1;
  if (!isArray(value) || value.length < 1 || value.length > 3) return false;
  return value[0] === dims[0] && (value.length > 1 ? value[1] : 1) === dims[1] && (value.length > 2 ? value[2] : 1) === dims[2];
}

/**
 * Whether `options` has no key but those of {@link LaunchOptions}: a launch's fast test, which
 * allocates nothing (an inherited key fails it too, and the full check then decides).
 */
function onlyLaunchOptions(options: object): boolean {
  for (const key in options) {
    switch (key) {
      case 'grid': case 'block': case 'sharedMem': case 'cooperative': case 'cluster': continue;
      default: return false;
    }
  }
  return true;
}

/** Checks `config` against `device`'s limits, once per device. */
export let checkConfigFor: (config: LaunchConfig, device: DeviceEngine) => void;

/**
 * Whether plain `options` describe exactly `config`, so that a launch with them can reuse it
 * (and the checks it passed) instead of building a new one.
 */
export let configMatches: (config: LaunchConfig, options: unknown) => boolean;

/** The configuration words of `config`'s launch headers (`configWords` of the launch block's layout). */
export let configHeader: (config: LaunchConfig) => Uint32Array;

/**
 * An immutable launch configuration. Build one once and reuse it: a launch with the same
 * LaunchConfig object skips every check that was already made.
 */
export class LaunchConfig {
  /** Blocks in the grid, x/y/z. */
  readonly grid: readonly [number, number, number];
  /** Threads in a block, x/y/z. */
  readonly block: readonly [number, number, number];
  /** Dynamic shared memory per block, in bytes. */
  readonly sharedMem: number;
  /** Blocks per cluster, x/y/z, or undefined for no clusters. */
  readonly cluster: readonly [number, number, number] | undefined;
  /** Whether the kernel is launched cooperatively. */
  readonly cooperative: boolean;
  readonly #header: Uint32Array;
  #checkedFor: DeviceEngine | undefined;
  static {
    brand(this, (value) => #checkedFor in value);
  }

  /**
   * @throws TypeError/RangeError naming the bad option, e.g.
   * ``Expected `grid` to be positive integers, got [0, 1, 1]``.
   */
  constructor(options: LaunchOptions) {
    checkOptions('config', options, LAUNCH_OPTIONS);
    if (options === undefined) typeError('config', 'launch options with `grid` and `block`', options);
    const { sharedMem = 0, cooperative = false } = options;
    this.grid = dim3('grid', options.grid, false)!;
    this.block = dim3('block', options.block, false)!;
    this.cluster = dim3('cluster', options.cluster, true);
    if (typeof sharedMem !== 'number' || !Number.isInteger(sharedMem)) typeError('sharedMem', 'an integer number of bytes', sharedMem);
    if (sharedMem < 0 || sharedMem > 0xffff_ffff) rangeError('sharedMem', 'a non-negative number of bytes', sharedMem);
    if (typeof cooperative !== 'boolean') typeError('cooperative', 'a boolean', cooperative);
    if (this.cluster) {
      const [cx, cy, cz] = this.cluster;
      const [gx, gy, gz] = this.grid;
      if (gx % cx || gy % cy || gz % cz)
        rangeError('grid', `a multiple of \`cluster\` ${describe([...this.cluster])}`, [...this.grid]);
    }
    this.sharedMem = sharedMem;
    this.cooperative = cooperative;
    const flags = (cooperative ? FLAG_COOPERATIVE : 0) | (this.cluster ? FLAG_CLUSTER : 0);
    this.#header = headerWords(this.grid, this.block, sharedMem, flags, this.cluster);
    Object.freeze(this);
  }

  /**
   * The config itself, or a new one built from plain options.
   * @example
   * const config = LaunchConfig.from({ grid: 4096, block: 256 }); // checked once
   * for (const frame of frames) stream.launch(kernel, config, [frame, n]);
   */
  static from(config: LaunchConfig | LaunchOptions): LaunchConfig {
    return isInstance(config, LaunchConfig) ? config : new LaunchConfig(config);
  }

  #matches(options: unknown): boolean {
    if (typeof options !== 'object' || options === null || isArray(options) || isInstance(options, LaunchConfig)) return false;
    const o = options as unknown as LaunchOptions;
    try {
      return (
        sameDims(o.grid, this.grid) &&
        sameDims(o.block, this.block) &&
        (o.sharedMem === undefined ? 0 : o.sharedMem) === this.sharedMem &&
        (o.cooperative === undefined ? false : o.cooperative) === this.cooperative &&
        sameDims(o.cluster, this.cluster) &&
        onlyLaunchOptions(o) // a misspelt option is refused by the full check
      );
    } catch {
      return false; // a revoked proxy, a getter that throws: refused by the full check
    }
  }

  /** Total threads per block. */
  get threadsPerBlock(): number {
    return this.block[0] * this.block[1] * this.block[2];
  }

  #checkFor(device: DeviceEngine): void {
    if (this.#checkedFor === device) return;
    const p = device.properties;
    const threads = this.threadsPerBlock;
    if (threads > p.maxThreadsPerBlock) rangeError('block', `1..${p.maxThreadsPerBlock} threads`, threads);
    const maxBlock = [p.maxBlockX, p.maxBlockY, p.maxBlockZ];
    const maxGrid = [p.maxGridX, p.maxGridY, p.maxGridZ];
    this.block.forEach((d, i) => {
      if (d > maxBlock[i]!) rangeError('block', `at most ${describe(maxBlock)}`, [...this.block]);
    });
    this.grid.forEach((d, i) => {
      if (d > maxGrid[i]!) rangeError('grid', `at most ${describe(maxGrid)}`, [...this.grid]);
    });
    if (this.sharedMem > p.sharedMemoryPerBlockOptin)
      rangeError('sharedMem', `at most ${p.sharedMemoryPerBlockOptin} bytes on ${p.name}`, this.sharedMem);
    if (this.cooperative && !p.cooperativeLaunch)
      rangeError('cooperative', `false: ${p.name} has no cooperative launch`, true);
    if (this.cluster && !p.clusterLaunch) rangeError('cluster', `unset: ${p.name} has no cluster launch`, [...this.cluster]);
    this.#checkedFor = device;
  }
  static {
    checkConfigFor = (config, device) => config.#checkFor(device);
    configMatches = (config, options) => config.#matches(options);
    configHeader = (config) => config.#header;
  }
}

/**
 * Checks `config`'s dynamic shared memory against what kernel `name` allows now, as the driver
 * would refuse its launch, but before anything is enqueued: on a GPU, what the driver reports
 * (48 KiB less the kernel's static shared memory, until setMaxDynamicSharedMemory raises it); on
 * the host device, 48 KiB or what it was raised to.
 * @throws RangeError naming `sharedMem`.
 */
export function checkDynamicShared(config: LaunchConfig, name: string, device: DeviceEngine, attributes: KernelAttributes): void {
  const p = device.properties;
  const allowed = device.kind === 'host' ? Math.max(p.sharedMemoryPerBlock, attributes.maxDynamicSharedSizeBytes) : attributes.maxDynamicSharedSizeBytes;
  if (config.sharedMem <= allowed) return;
  rangeError('sharedMem', `at most ${allowed} bytes for kernel ${name} (up to ${p.sharedMemoryPerBlockOptin} once it opts in with setMaxDynamicSharedMemory)`, config.sharedMem);
}
