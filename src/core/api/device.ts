// Over 400 lines: Device's whole public surface, each member documented with an example.
// CUDA devices and the host device: enumeration, properties, the sticky error, and the factories
// for streams, events and pinned memory, modules and templates, graphs, and the device's libraries.
// Each member checks its arguments and hands the work to an engine below (device/, kernels/,
// graphs/, libraries/).
import { brand, CudaError, checkCount, isInstance, rangeError, received, typeError } from '../base/errors.js';
import { checkDType, dtypeOfArray, type DType, type DTypeOfArray } from '../base/dtype.js';
import { addon, cudaBackend, driverUnavailable } from '../native/addon.js';
import type { Backend, DeviceProperties, DriverInfo } from '../native/types.js';
import { hostBackend } from '../host/backend.js';
import { HostArray, checkHostLength, allocateHostArray, registerHostArray } from './memory.js';
import { DeviceEngine } from '../device/device-engine.js';
import { Event, type EventOptions, createEvent } from './event.js';
import { Stream, createStream } from './stream.js';
import type { StreamOptions } from '../device/stream-options.js';
import { refusal } from '../base/thenable.js';
import type { CompileOptions } from '../compiler/program.js';
import { Module, compileModule, loadModuleImage, type ModuleImage } from './module.js';
import { Template, makeTemplate } from './template.js';
import { Graph, makeGraph } from './graph.js';
import { Blas } from './blas.js';
import { Fft } from './fft.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';

/** The most host devices {@link Device.hosts} makes: each costs memory and native state. */
const MAX_HOST_DEVICES = 1024;
// The devices of this environment, each made once: CUDA devices by ordinal, host devices in order.
const devices = new Map<number, Device>();
const hostDevices: Device[] = [];

/**
 * A CUDA device 0 whose natives are `backend`'s, apart from this environment's devices:
 * rxcuda/internal's stand-in, over natives that do nothing (bench/study/library-path).
 */
export let deviceOver: (backend: Backend) => Device;

/**
 * A CUDA device and its primary context, which rxcuda retains and makes current for you, or the
 * host device (the CPU reference backend, with the same contract). Get one with
 * `Device.get(ordinal)`, `Device.host()` or `Device.default()`.
 */
export class Device {
  /** The device's ordinal, as CUDA numbers them; -1 for a host device. */
  readonly ordinal: number;
  /** A host device's position among the host devices ({@link Device.hosts}); -1 for a CUDA device. */
  readonly hostIndex: number;
  /** Facts about the device, read once. */
  readonly properties: DeviceProperties;
  /** @internal What rxcuda keeps of the device: its native device, sticky error, lanes, … */
  readonly engine: DeviceEngine;
  static {
    brand(this, (value) => #device in value);
  }
  #device(): void {}

  private constructor(token: ConstructorToken, ordinal: number, backend: Backend, hostIndex = -1) {
    checkConstructorToken(token, 'a Device', 'Device.get(), Device.host() or Device.default()');
    this.ordinal = ordinal;
    this.hostIndex = hostIndex;
    this.engine = new DeviceEngine(this, ordinal, backend, () => createStream(this, { nonBlocking: true }).engine);
    this.properties = this.engine.properties;
  }

  /**
   * The driver's state: version, whether it can be used (and why not), NVRTC's version and path.
   * @example
   * const info = Device.driverInfo();
   * if (!info.available) console.log(`no GPU: ${info.problem}`);
   * if (!info.nvrtc.available) console.log(`no NVRTC: ${info.nvrtc.problem}`);
   */
  static driverInfo(): DriverInfo {
    return addon.driverInfo();
  }

  /**
   * Number of CUDA devices; 0 where there is no driver or no device.
   * @example
   * const device = Device.count() > 0 ? Device.get(0) : Device.host();
   */
  static count(): number {
    return addon.driverInfo().deviceCount;
  }

  /**
   * The device with this ordinal.
   * @throws CudaError when no CUDA driver or device can be used (its message says why).
   * @throws RangeError when `ordinal` is not below {@link Device.count}.
   * @example
   * const second = Device.get(1);
   * console.log(`${second}: ${second.name}, ${second.arch}`); // device 1: NVIDIA H200, sm_90
   */
  static get(ordinal: number): Device {
    checkCount('ordinal', ordinal);
    const existing = devices.get(ordinal);
    if (existing) return existing;
    const info = addon.driverInfo();
    if (!info.available) throw driverUnavailable(info);
    if (ordinal >= info.deviceCount)
      rangeError('ordinal', `below the device count ${info.deviceCount}`, ordinal);
    const device = new Device(CONSTRUCTOR_TOKEN, ordinal, cudaBackend);
    devices.set(ordinal, device);
    return device;
  }

  /**
   * Every CUDA device, in ordinal order; where there is none, the host device alone (as
   * {@link Device.default} falls back to it), so that `onStreams(Device.all())` runs everywhere.
   * Use {@link Device.count} to tell whether there is a GPU.
   * @example
   * frames$.pipe(onStreams(Device.all(), { lanesPerDevice: 2 }), upload((f) => f.pixels), …)
   */
  static all(): Device[] {
    const count = Device.count();
    return count > 0 ? Array.from({ length: count }, (_, i) => Device.get(i)) : [Device.host()];
  }

  /**
   * The host device: the CPU as a reference backend. Its streams run their commands in order on a
   * few threads per environment (a stream costs no thread of its own; at most 65536 are open), its memory is host memory, and events, host steps and completions
   * behave as on a GPU. Kernels run there when they have a CPU implementation.
   * @example
   * const device = Device.host(); // the CPU, even where there is a GPU
   * using stream = device.createStream();
   */
  static host(): Device {
    return Device.hosts(1)[0]!;
  }

  /**
   * `count` host devices: the first is {@link Device.host}, the others stand for further devices
   * of one machine. Each has its own streams, events, memory and sticky error, and the checks
   * that keep a device's work to its own memory apply between them, so that pipelines over
   * several GPUs run, with every check, where there are none (in CI, say). They share the CPU:
   * they are no faster together than one. The same devices every call.
   * @example
   * const [a, b] = Device.hosts(2);
   * frames$.pipe(onStreams([a, b], { lanesPerDevice: 2 }), ...)
   * @param count how many host devices, 1 to 1024.
   * @returns the first `count` host devices.
   * @throws TypeError or RangeError for a `count` that is not an integer in 1..1024.
   */
  static hosts(count: number): Device[] {
    if (Number.isInteger(count) && count > MAX_HOST_DEVICES) rangeError('count', `at most ${MAX_HOST_DEVICES} host devices`, count);
    checkCount('count', count, 1);
    while (hostDevices.length < count) hostDevices.push(new Device(CONSTRUCTOR_TOKEN, -1, hostBackend, hostDevices.length));
    return hostDevices.slice(0, count);
  }

  static #over(backend: Backend): Device {
    return new Device(CONSTRUCTOR_TOKEN, 0, backend);
  }

  /**
   * The first CUDA device where there is one, else the host device.
   * @example
   * const device = Device.default();
   * console.log(`running on ${device}`); // device 0, or the host device
   */
  static default(): Device {
    return Device.count() > 0 ? Device.get(0) : Device.host();
  }

  /** Whether this is a CUDA device or the host device. */
  get kind(): 'cuda' | 'host' {
    return this.engine.backend.kind;
  }

  /**
   * `device 0`, `the host device` (the first), or `host device 1` (another).
   * @example
   * console.log(`${Device.default()}`); // device 0, or the host device
   */
  toString(): string {
    if (this.kind === 'cuda') return `device ${this.ordinal}`;
    return this.hostIndex === 0 ? 'the host device' : `host device ${this.hostIndex}`;
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

  /**
   * Free and total device memory in bytes, as the driver reports them now (for a host device, the
   * machine's RAM).
   * @example
   * const { free, total } = device.memoryInfo();
   * console.log(`${(free / 2 ** 30).toFixed(1)} of ${(total / 2 ** 30).toFixed(1)} GiB free`);
   */
  memoryInfo(): {
    /** Free memory in bytes. */
    free: number;
    /** Total memory in bytes. */
    total: number;
  } {
    return this.engine.native.memoryInfo();
  }

  /**
   * Whether this device reads and writes `peer`'s memory directly (peer access), which the first
   * call enables, both ways, where the hardware allows it. Copies between the two
   * ({@link Stream.copy}) are then direct peer copies; where it does not (`false`), the driver
   * stages them through host memory, at a fraction of the speed, and the first such copy says so
   * in a process warning (code `RXCUDA_PEER_STAGED`). True between host devices (one memory) and
   * for the device itself.
   * @throws TypeError for a `peer` that is not a Device; RangeError for one of another backend.
   * @example
   * const [a, b] = Device.all();
   * if (a && b && !a.canAccessPeer(b)) console.warn('copies between the GPUs go through host memory');
   */
  canAccessPeer(peer: Device): boolean {
    if (!isInstance(peer, Device)) typeError('peer', 'a Device', peer);
    if (peer.engine.backend !== this.engine.backend) rangeError('peer', `a device of the ${this.kind} backend, as ${this} is`, received(String(peer)));
    if (peer === this) return true;
    return this.engine.reachesPeer(peer.engine);
  }

  /**
   * The sticky error that broke this device's context (an illegal address, a launch failure), or
   * undefined. Once set, every call on the device fails fast with it.
   */
  get poisoned(): CudaError | undefined {
    return this.engine.faults.poisoned;
  }

  /**
   * A new stream on this device.
   * @param options `priority` (lower is more urgent, default 0) and `nonBlocking` (default false).
   * @example
   * using urgent = device.createStream({ priority: -1, nonBlocking: true });
   */
  createStream(options?: StreamOptions): Stream {
    this.engine.checkUsable();
    return createStream(this, options);
  }

  /**
   * A new event, to be recorded later with {@link Stream.record}.
   * @example
   * using start = device.createEvent({ timing: true });
   * using end = device.createEvent({ timing: true });
   * stream.record(start);
   * stream.launch(kernel, config, args);
   * stream.record(end);
   * await end.completed();
   * console.log(`${end.elapsedSince(start)} ms`);
   */
  createEvent(options?: EventOptions): Event {
    this.engine.checkUsable();
    return createEvent(this, options);
  }

  /**
   * A typed array of `length` elements in pinned host memory, zeroed: the device reads and writes
   * it asynchronously, and `data` is a TypedArray over it.
   * @throws TypeError for an unknown `dtype`, RangeError for a negative or non-integer `length`,
   * or one whose bytes exceed the largest buffer Node.js makes (`buffer.constants.MAX_LENGTH`).
   * @example
   * using input = device.allocHost('f32', 1024);
   * input.data.fill(1); // a Float32Array over pinned memory
   * stream.copy(deviceArray, input);
   */
  allocHost<D extends DType>(dtype: D, length: number): HostArray<D> {
    checkDType('dtype', dtype);
    checkHostLength(dtype, length);
    this.engine.checkUsable();
    return allocateHostArray(this.engine, dtype, length);
  }

  /**
   * Page-locks an array you allocated once and refill (`cuMemHostRegister`, once per array: it
   * locks every page), so that the device copies from and to it directly: `upload` of it copies
   * nothing on the host. Its `data` is your array; `close()` unlocks it once its work is done.
   * Memory registered twice (or before that unlock) is refused, on the host device too. The
   * memory stays put while work uses it: its buffer is marked untransferable for good
   * (`markAsUntransferable`: `postMessage`/`structuredClone` copy it, or throw from Node 21 on);
   * a detached or resizable buffer is refused, and so is an array detached all the same, by every
   * command (docs/rules.md, "Memory the user can move away"). A `SharedArrayBuffer` is taken as it is.
   * @example
   * stream.copy(deviceFrame, device.registerHost(frame)); // the device reads `frame` itself
   * @throws TypeError for anything but a TypedArray (Uint8ClampedArray excepted), or one whose
   * buffer is detached or resizable (``…, got a detached Uint32Array``); CudaError when the driver
   * refuses (memory registered already, in part or whole: 712, `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`).
   */
  registerHost<A extends ArrayBufferView>(data: A): HostArray<DTypeOfArray<A>> {
    const dtype = dtypeOfArray(data);
    if (dtype === undefined) typeError('data', 'a TypedArray', data);
    this.engine.checkUsable();
    return registerHostArray(this.engine, dtype, data as never) as HostArray<DTypeOfArray<A>>;
  }

  /**
   * Loads a module from a cubin, fatbin or PTX image (PTX may be given as a string). The driver's
   * load waits for the device's running work, and holds the driver meanwhile, so it runs on a
   * worker thread once the work given to the device so far has completed: the main thread never
   * waits for the device.
   * @throws TypeError (synchronously) for an empty or non-image argument, and on the host device,
   * which runs no images (compile kernels with CPU implementations there); the Promise rejects
   * with a CudaError when the driver rejects the image, or with the one that broke the device.
   * @example
   * const ptx = await readFile('kernels/saxpy.ptx', 'utf8'); // or a cubin or fatbin as bytes
   * using module = await device.loadModule(ptx);
   * const saxpy = module.kernel('saxpy', ['u32', 'f32', 'ptr<f32>', 'ptr<f32>']);
   */
  loadModule(image: ModuleImage): Promise<Module> {
    return refusal(() => this.engine.checkUsable()) ?? loadModuleImage(this, image);
  }

  /**
   * Compiles CUDA C++ with NVRTC (on a worker thread) for this device and loads the result (on a
   * worker thread too). Compiled code is cached on disk, keyed by source, options, NVRTC version
   * and architecture. On the host device the kernels run through CPU implementations
   * (`module.kernel(name, signature, { cpu })`, which CUDA devices ignore), and the source is
   * compiled too, where a CUDA compiler is found (see {@link hostCompiler}), so that what a GPU
   * would refuse is refused there: a source that does not compile, a kernel name that is not an
   * entry of the code, a signature its parameters contradict.
   * A source that sets a graph condition from device code (`cudaGraphSetConditional`) is
   * compiled with `-rdc=true` and linked with the CUDA device runtime, libcudadevrt.a, before it
   * loads (see `CompiledProgram`); the host device only compiles it.
   * Never throws: the Promise rejects, with a TypeError or RangeError for bad source or options,
   * the CudaError that broke the device, or an NvrtcError with the compiler's log when
   * compilation fails (on the host device too).
   * @example
   * using module = await device.compile(source, { defines: { BLOCK: 256 }, std: 'c++17' });
   * const scale = module.kernel('scale', ['u32', 'f32', 'ptr<f32>'], {
   *   cpu: (_config, [n, a, x]) => { for (let i = 0; i < n; i++) x[i] = Math.fround(a * x[i]!); },
   * });
   */
  compile(source: string, options?: CompileOptions): Promise<Module> {
    return compileModule(this, source, options);
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
   * @throws TypeError for empty source or bad options, RangeError for an unknown `std`.
   */
  template(source: string, options?: CompileOptions): Template {
    this.engine.checkUsable();
    return makeTemplate(this, source, options);
  }

  /**
   * An empty graph, to build node by node (see {@link Graph}); {@link Stream.capture} records one
   * from a stream's work instead.
   * @example
   * using graph = device.createGraph();
   * const zeroed = graph.addFill(x, 0);
   * graph.addKernel(scale, { grid: 4, block: 256 }, [n, 2, x], { after: [zeroed] });
   * using exec = graph.instantiate();
   * exec.launch(stream);
   */
  createGraph(): Graph {
    this.engine.checkUsable();
    return makeGraph(this);
  }

  /**
   * cuBLAS of this device, in stream order (the CPU reference on the host device); the same as
   * `Blas.for(device)`. Nothing is loaded until its first call.
   * @example
   * device.blas.gemm(stream, a, b, c, { m, n, k });
   */
  get blas(): Blas {
    return Blas.for(this);
  }

  /**
   * cuFFT of this device, in stream order (the CPU reference on the host device); the same as
   * `Fft.for(device)`. Nothing is loaded until its first call.
   * @example
   * device.fft.r2c(stream, samples, spectra, { shape: 4096, batch: 64 });
   */
  get fft(): Fft {
    return Fft.for(this);
  }

  static {
    deviceOver = (backend) => Device.#over(backend);
  }
}
