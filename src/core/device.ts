// CUDA devices: enumeration, properties, and the factories for streams, events, memory, modules.
import { addon, backends, type Backend, type DeviceProperties, type DriverInfo, type NativeDevice } from './native.js';
import { CudaError, checkCount, checkOptions, rangeError, typeError } from './errors.js';
import { constants } from 'node:buffer';
import { checkDType, dtypeOfArray, DTYPES, type DType, type DTypeOfArray } from './dtype.js';
import { HostArray } from './memory.js';
import { Stream, type StreamOptions } from './stream.js';
import { Event, type EventOptions } from './event.js';
import { Graph } from './graph.js';
import { Module, type ModuleImage } from './module.js';
import { compileProgram, type CompileOptions } from './program.js';
import { CompletionPoints } from './completion-points.js';
import { PinnedCache } from './pinned-cache.js';
import { Template } from './template.js';

const devices = new Map<number, Device>();
let hostDevice: Device | undefined;

/** The reason no CUDA device can be used, as a CudaError (for `Device.get` and friends). */
function unavailable(info: DriverInfo): CudaError {
  if (info.code === 0) return new CudaError(100, 'CUDA_ERROR_NO_DEVICE', 'cuDeviceGetCount', 'the NVIDIA driver sees no CUDA device');
  return new CudaError(info.code, info.codeName, 'cuInit', info.problem);
}

/**
 * A CUDA device and its primary context, which rxcuda retains and makes current for you, or the
 * host device (the CPU reference backend, with the same contract). Get one with
 * `Device.get(ordinal)`, `Device.host()` or `Device.default()`.
 */
export class Device {
  /** The device's ordinal, as CUDA numbers them; -1 for the host device. */
  readonly ordinal: number;
  /** @internal The native classes of this device's backend. */
  readonly backend: Backend;
  /** Facts about the device, read once. */
  readonly properties: DeviceProperties;
  /** @internal */
  readonly native: NativeDevice;
  #poisoned: CudaError | undefined;
  /**
   * @internal Every stream of the device not closed yet, rxcuda's own included, held weakly: a
   * stream nobody closed is still collected (its native object destroys it).
   */
  readonly openStreams = new Set<WeakRef<Stream>>();

  /** @internal The streams of {@link openStreams} still alive, forgetting the collected ones. */
  liveStreams(): Stream[] {
    const live: Stream[] = [];
    for (const ref of this.openStreams) {
      const stream = ref.deref();
      if (stream) live.push(stream);
      else this.openStreams.delete(ref);
    }
    return live;
  }
  /** @internal Streams for completion points that follow work spread over streams. */
  readonly completionPoints = new CompletionPoints(this);
  /** @internal Pinned blocks kept for reuse; see pinned-cache.ts. */
  readonly pinnedCache = new PinnedCache((ptr) => this.completionPoints.whenQuiet(() => this.backend.freeHost(this.native, ptr)));

  private constructor(ordinal: number, backend: Backend) {
    this.ordinal = ordinal;
    this.backend = backend;
    this.native = new backend.Device(ordinal);
    this.properties = Object.freeze(this.native.properties());
  }

  /** The driver's state: version, whether it can be used (and why not), NVRTC's version and path. */
  static driverInfo(): DriverInfo {
    return addon.driverInfo();
  }

  /** Number of CUDA devices; 0 where there is no driver or no device. */
  static count(): number {
    return addon.driverInfo().deviceCount;
  }

  /**
   * The device with this ordinal.
   * @throws CudaError when no CUDA driver or device can be used (its message says why).
   * @throws RangeError when `ordinal` is not below {@link Device.count}.
   */
  static get(ordinal: number): Device {
    checkCount('ordinal', ordinal);
    const existing = devices.get(ordinal);
    if (existing) return existing;
    const info = addon.driverInfo();
    if (!info.available) throw unavailable(info);
    if (ordinal >= info.deviceCount)
      rangeError('ordinal', `below the device count ${info.deviceCount}`, ordinal);
    const device = new Device(ordinal, backends.cuda);
    devices.set(ordinal, device);
    return device;
  }

  /** Every CUDA device, in ordinal order (empty where there is none). */
  static all(): Device[] {
    return Array.from({ length: Device.count() }, (_, i) => Device.get(i));
  }

  /**
   * The host device: the CPU as a reference backend. Its streams run their commands in order on a
   * few threads per environment (a stream costs no thread of its own; at most 65536 are open), its memory is host memory, and events, host steps and completions
   * behave as on a GPU. Kernels run there when they have a CPU implementation.
   */
  static host(): Device {
    return (hostDevice ??= new Device(-1, backends.host));
  }

  /** The first CUDA device where there is one, else the host device. */
  static default(): Device {
    return Device.count() > 0 ? Device.get(0) : Device.host();
  }

  /** Whether this is a CUDA device or the host device. */
  get kind(): 'cuda' | 'host' {
    return this.backend.kind;
  }

  /** `device 0`, or `the host device`. */
  toString(): string {
    return this.kind === 'host' ? 'the host device' : `device ${this.ordinal}`;
  }

  /** The device's name, e.g. "NVIDIA H200". */
  get name(): string {
    return this.properties.name;
  }

  /** Compute capability as `[major, minor]`, e.g. `[9, 0]`. */
  get computeCapability(): readonly [number, number] {
    return [this.properties.major, this.properties.minor];
  }

  /** The real architecture NVRTC compiles for by default, e.g. `sm_90`. */
  get arch(): string {
    return this.kind === 'host' ? 'host' : `sm_${this.properties.major}${this.properties.minor}`;
  }

  /** Free and total device memory in bytes, as the driver reports them now. */
  memoryInfo(): { free: number; total: number } {
    return this.native.memoryInfo();
  }

  /**
   * The sticky error that broke this device's context (an illegal address, a launch failure), or
   * undefined. Once set, every call on the device fails fast with it.
   */
  get poisoned(): CudaError | undefined {
    return this.#poisoned;
  }

  /** @internal Records a sticky error, which every later call then throws. */
  recordFailure(error: unknown): void {
    if (error instanceof CudaError && error.sticky) this.#poisoned ??= error;
  }

  /** @internal Records a sticky error and rethrows any error as it is. */
  fail(error: unknown): never {
    this.recordFailure(error);
    throw error;
  }

  /** @internal Throws the sticky error, if there is one. */
  checkUsable(): void {
    if (this.#poisoned) throw this.#poisoned;
  }

  /**
   * A new stream on this device.
   * @param options `priority` (lower is more urgent, default 0) and `nonBlocking` (default false).
   */
  createStream(options?: StreamOptions): Stream {
    this.checkUsable();
    return Stream.create(this, options);
  }

  /** A new event, to be recorded later with {@link Stream.record}. */
  createEvent(options?: EventOptions): Event {
    this.checkUsable();
    return Event.create(this, options);
  }

  /**
   * An empty graph, to build node by node (see {@link Graph}); {@link Stream.capture} records one
   * from a stream's work instead.
   */
  createGraph(): Graph {
    this.checkUsable();
    return Graph.create(this);
  }

  /**
   * A typed array of `length` elements in pinned host memory, zeroed: the device reads and writes
   * it asynchronously, and `data` is a TypedArray over it.
   * @throws TypeError for an unknown `dtype`, RangeError for a negative or non-integer `length`,
   * or one whose bytes exceed the largest buffer Node.js makes (`buffer.constants.MAX_LENGTH`).
   */
  allocHost<D extends DType>(dtype: D, length: number): HostArray<D> {
    checkDType('dtype', dtype);
    checkCount('length', length);
    const most = Math.floor(constants.MAX_LENGTH / DTYPES[dtype].size);
    if (length > most) rangeError('length', `at most ${most} ${dtype} elements (${constants.MAX_LENGTH} bytes, the largest buffer Node.js makes)`, length);
    this.checkUsable();
    return HostArray.allocate(this, dtype, length);
  }

  /**
   * Page-locks an array you allocated once and refill (`cuMemHostRegister`), so that the device
   * copies from and to it directly, as from {@link allocHost}'s memory: `upload` of the returned
   * array copies nothing on the host. Its `data` is your array itself. `close()` unlocks it once
   * the work that used it has completed; your array stays yours. Registering takes time (it locks
   * every page): do it once per array, not per value. On the host device nothing is locked.
   * @throws TypeError for anything but a TypedArray (Uint8ClampedArray excepted); CudaError when
   * the driver refuses (memory registered already, say).
   */
  registerHost<A extends ArrayBufferView>(data: A): HostArray<DTypeOfArray<A>> {
    const dtype = dtypeOfArray(data);
    if (dtype === undefined) typeError('data', 'a TypedArray', data);
    this.checkUsable();
    return HostArray.register(this, dtype, data as never) as HostArray<DTypeOfArray<A>>;
  }

  /**
   * Loads a module from a cubin, fatbin or PTX image (PTX may be given as a string). The driver's
   * load waits for the device's running work, and holds the driver meanwhile, so it runs on a
   * worker thread once the work given to the device so far has completed: the main thread never
   * waits for the device.
   * @throws TypeError (synchronously) for an empty or non-image argument; the Promise rejects
   * with a CudaError when the driver rejects the image.
   */
  loadModule(image: ModuleImage): Promise<Module> {
    this.checkUsable();
    return Module.load(this, image);
  }

  /**
   * Compiles CUDA C++ with NVRTC (on a worker thread) for this device and loads the result (on a
   * worker thread too). Compiled code is cached on disk, keyed by source, options, NVRTC version
   * and architecture. On the host device nothing is compiled: its kernels need CPU
   * implementations (`module.kernel(name, signature, { cpu })`), which CUDA devices ignore.
   * @throws NvrtcError with the compiler's log when compilation fails.
   */
  async compile(source: string, options?: CompileOptions): Promise<Module> {
    if (typeof source !== 'string' || source.length === 0) typeError('source', 'CUDA C++ source text', source);
    checkOptions('options', options);
    this.checkUsable();
    if (this.kind === 'host') return Module.forHost(this);
    const compiled = await compileProgram(source, this.arch, options ?? {});
    return Module.load(this, compiled.image, compiled.names, compiled.log, compiled.fromCache);
  }

  /**
   * CUDA C++ whose kernels are compiled per specialization, from each launch's context: see
   * {@link Template}. Nothing is compiled until a launch needs it.
   * @example
   * const template = device.template(source);
   * const sum = template.kernel('block_sum', ['ptr<f32>', 'ptr<f32>', 'u32'], {
   *   specialize: (launch) => ({ BLOCK_THREADS: launch.block[0] }),
   * });
   * @param source CUDA C++ source text.
   * @param options compile options shared by every specialization (see {@link Device.compile}).
   * @throws TypeError for empty source or non-object options.
   */
  template(source: string, options?: CompileOptions): Template {
    this.checkUsable();
    return new Template(this, source, options);
  }

  /** @internal A stream of rxcuda's own (completion points), made without the public checks. */
  createInternalStream(): Stream {
    return Stream.create(this, { nonBlocking: true });
  }
}
