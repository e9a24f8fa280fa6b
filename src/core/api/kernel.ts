// Kernels with declared signatures, and below each its engine with the launch fast path (the
// public Kernel checks and delegates to it): each launch writes its arguments
// into a preallocated block (kernels/launch-block.ts) and makes one native call; one that needs a
// context (hooks, a CPU implementation, a specializer) builds it first. The engine stays in this
// file: it hands user code public objects (a launch's context holds this Kernel and the Stream;
// the kernel on another device is a Kernel).
import { brand, checkCount, isArray, rangeError, received, typeError } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import type { KernelAttributes, NativeKernel } from '../native/types.js';
import type { Device } from './device.js';
import type { Stream } from './stream.js';
import type { Recorder } from '../device/recorder.js';
import type { LaunchRecorder } from '../graphs/node-work.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import type { Pause } from '../queue/scheduler.js';
import { CodelessKernel } from '../kernels/codeless-kernel.js';
import type { BlockSizeSuggestion, CompiledSpecialization, Signature, TypedPointer } from '../kernels/kernel-types.js';
import type { DType } from '../base/dtype.js';
import type { Memory } from './memory.js';
import type { GraphCondition } from '../device/condition.js';
import { LaunchBlock } from '../kernels/launch-block.js';
import { checkDynamicShared, type LaunchConfig, type LaunchOptions, checkConfigFor } from '../kernels/launch-config.js';
import { LaunchContext, makeLaunchContext } from './launch-context.js';
import { globalHooks, LaunchHooks, type Disposer, type LaunchHook } from './launch-hooks.js';
import type { Module } from './module.js';
import type { ModuleEngine } from '../kernels/module-engine.js';
import { checkCompiledParams, checkSignature } from '../kernels/packer.js';
import { Specializations } from './specialization.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';

export type { StructParam, ParamType, Signature, BlockSizeSuggestion } from '../kernels/kernel-types.js';

/**
 * The JavaScript value each parameter type takes: a number (or bigint for 64-bit integers), memory
 * of the element type for `'ptr<D>'`, any memory or an address for `'ptr'`, bytes for a struct.
 */
export type ArgOf<P> = P extends 'i64' | 'u64'
  ? number | bigint
  : P extends DType
    ? number
    : P extends TypedPointer<infer D>
      ? Memory<D>
      : P extends 'ptr'
        ? Memory | bigint
        : P extends 'condition'
          ? GraphCondition
          : ArrayBuffer | ArrayBufferView;

/** Arguments of a kernel with signature S, one per parameter. */
export type KernelArgs<S extends Signature> = { readonly [K in keyof S]: ArgOf<S[K]> };

// Read by every launch: a module constant, not an imported binding (whose reads cost a check each).
const global = globalHooks;

/** What a launch from the `launch` operator adds to a plain one. */
export interface LaunchExtras {
  /** The pipeline's hooks, after the global and the kernel's. */
  readonly hooks?: LaunchHooks | undefined;
  /** Where a failure found after the call returned goes (a specialization that did not compile). */
  readonly onFailure?: ((error: unknown) => void) | undefined;
}

/** How a kernel is made beyond its native function. */
export interface KernelOptions<S extends Signature> {
  /** Its launches need a context: a CPU implementation reads it through currentLaunch(). */
  readonly contextual?: boolean;
  /** Its launches go to the specialization of their context (see specialization.ts). */
  readonly specializations?: Specializations<S> | undefined;
  /** The same kernel in `module`, the kernel's module on another device (see KernelEngine.on). */
  readonly remake?: ((module: Module, origin: Kernel<S>) => Kernel<S>) | undefined;
  /** The kernel this one stands for on its device: its hooks are that kernel's. */
  readonly origin?: Kernel<S> | undefined;
}

/**
 * The kernel `name` of `module`, run by `native` (Module.kernel and Template.kernel make
 * them; the constructor is private, so that only rxcuda makes kernels).
 */
export let makeKernel: <S extends Signature>(module: Module, name: string, native: NativeKernel, signature: S, options?: KernelOptions<S>) => Kernel<S>;

/**
 * A kernel of a loaded module, with its declared signature. Get one with {@link Module.kernel};
 * launch it with {@link Stream.launch}.
 */
export class Kernel<S extends Signature = Signature> {
  /** The name it was looked up by. */
  readonly name: string;
  /** The module it belongs to. */
  readonly module: Module;
  /** The declared parameter types. */
  readonly signature: S;
  /** @internal Its native kernel, launch block, hooks and counterparts on other devices. */
  readonly engine: KernelEngine<S>;
  #attributes: KernelAttributes | undefined;
  static {
    brand(this, (value) => #attributes in value);
  }

  static #make<S extends Signature>(module: Module, name: string, native: NativeKernel, signature: S, options: KernelOptions<S> = {}): Kernel<S> {
    return new Kernel(CONSTRUCTOR_TOKEN, module, name, native, signature, options);
  }

  private constructor(token: ConstructorToken, module: Module, name: string, native: NativeKernel, signature: S, options: KernelOptions<S> = {}) {
    checkConstructorToken(token, 'a Kernel', 'module.kernel() or template.kernel()');
    checkSignature(signature);
    this.module = module;
    this.name = name;
    this.signature = Object.freeze([...signature]) as unknown as S;
    this.engine = new KernelEngine(this, native, signature, options);
  }

  /** The device the kernel runs on. */
  get device(): Device {
    return this.module.device;
  }

  /** The CUfunction handle, for other CUDA code. */
  get handle(): bigint {
    return this.engine.native.handle();
  }

  /** Registers, shared and local memory, PTX and binary versions, as the driver reports them. */
  get attributes(): KernelAttributes {
    return (this.#attributes ??= Object.freeze(this.engine.native.attributes()));
  }

  /**
   * Allows launches with up to `bytes` of dynamic shared memory (above the default 48 KiB).
   * @throws CudaError when the device cannot provide it.
   * @example
   * tile.setMaxDynamicSharedMemory(96 * 1024);
   * stream.launch(tile, { grid: 64, block: 256, sharedMem: 96 * 1024 }, [x, n]);
   */
  setMaxDynamicSharedMemory(bytes: number): void {
    checkCount('bytes', bytes);
    this.engine.native.setAttribute(8, bytes);
    this.#attributes = undefined;
    this.engine.block.forgetConfig(); // its launches are checked against the new limit
  }

  /**
   * How many blocks of `blockSize` threads can be active on one multiprocessor at once.
   * @example
   * console.log(`${kernel.maxActiveBlocks(256)} blocks of 256 threads per multiprocessor`);
   */
  maxActiveBlocks(blockSize: number, sharedMem = 0): number {
    checkCount('blockSize', blockSize, 1);
    checkCount('sharedMem', sharedMem);
    return this.engine.native.occupancy(blockSize, sharedMem);
  }

  /**
   * The block size that maximizes occupancy, and the smallest grid that fills the device with it.
   * @param options `sharedMem` per block (default 0), `blockLimit` (default 0: no limit).
   * @example
   * const { blockSize } = saxpy.suggestedBlockSize();
   * stream.launch(saxpy, { grid: Math.ceil(n / blockSize), block: blockSize }, [n, 2, x, y]);
   */
  suggestedBlockSize(options: { sharedMem?: number; blockLimit?: number } = {}): BlockSizeSuggestion {
    checkOptions('options', options, ['blockLimit', 'sharedMem']);
    const { sharedMem = 0, blockLimit = 0 } = options;
    checkCount('sharedMem', sharedMem);
    checkCount('blockLimit', blockLimit);
    return this.engine.native.suggestBlockSize(sharedMem, blockLimit);
  }

  /**
   * Registers a hook called before each launch of this kernel, after the global hooks (see
   * {@link onLaunch} for the order and {@link LaunchHook} for what a hook may do).
   * @param hook the hook.
   * @returns a disposer that unregisters it.
   * @throws TypeError when `hook` is not a function.
   * @example
   * using trace = saxpy.onLaunch((launch) => console.log(`${launch}`));
   * stream.launch(saxpy, config, [n, 2, x, y]); // logs the launch first
   */
  onLaunch(hook: LaunchHook<S>): Disposer {
    return this.engine.onLaunch(hook as unknown as LaunchHook);
  }

  /**
   * The specializations compiled so far, for a kernel with a specializer (see
   * {@link Template.kernel}): their defines, and whether the compiled code came from the disk cache.
   * @example
   * for (const { defines, fromCache } of sum.specializations()) console.log(defines, fromCache ? '(cached)' : '');
   */
  specializations(): readonly CompiledSpecialization[] {
    return this.engine.specializations?.compiled() ?? [];
  }
  static {
    makeKernel = (module, name, native, signature, options) => Kernel.#make(module, name, native, signature, options);
  }
}

/**
 * What only rxcuda uses of a kernel: its native kernel and launch block, the launch fast path,
 * its hooks, and the kernel on other devices.
 */
export class KernelEngine<S extends Signature = Signature> {
  /** The kernel it runs. */
  readonly kernel: Kernel<S>;
  /** Its module (the kernel's), read by every launch. */
  readonly module: Module;
  /** Its module's engine, whose `closed` every launch reads. */
  readonly #module: ModuleEngine<Module, Device>;
  /** The native kernel (a graph's kernel nodes name it). */
  readonly native: NativeKernel;
  /** Whether a struct is among its parameters: only then can the same arguments (`Object.is`) pack other bytes. */
  readonly packsStructs: boolean;
  /** Whether a `'condition'` is among its parameters: only launches recorded into a graph take one. */
  readonly takesConditions: boolean;
  /** The block its launches write into. */
  readonly block: LaunchBlock;
  // Kept without its signature, so that a Kernel<S> stays a Kernel<Signature>.
  /** Where its launches go, for a kernel of specializations (see specialization.ts). */
  readonly specializations: Specializations<Signature> | undefined;
  #hooks: LaunchHooks | undefined;
  /** A CPU implementation or a specializer: its launches need a context, hooks or not. */
  readonly #alwaysInContext: boolean;
  /** Hooks registered on this kernel now. */
  #hooked = 0;
  /** Neither of the two: without global hooks, a launch builds no context. */
  #contextFree: boolean;
  // These too: the kernel's maker on another device, and the kernel this one stands for there.
  readonly #remake: ((module: Module, origin: Kernel) => Kernel) | undefined;
  readonly #origin: Kernel | undefined;
  /** This kernel on other devices, made on a first launch there (see {@link on}). */
  #onOtherDevices: Map<Device, Kernel> | undefined;

  constructor(kernel: Kernel<S>, native: NativeKernel, signature: S, options: KernelOptions<S>) {
    const module = kernel.module;
    this.kernel = kernel;
    this.module = module;
    this.#module = module.engine;
    this.native = native;
    this.packsStructs = signature.some((p) => typeof p !== 'string');
    this.takesConditions = signature.includes('condition');
    this.specializations = options.specializations as Specializations<Signature> | undefined;
    this.#alwaysInContext = options.contextual === true || options.specializations !== undefined;
    this.#remake = options.remake as ((module: Module, origin: Kernel) => Kernel) | undefined;
    this.#origin = options.origin as Kernel | undefined;
    this.#contextFree = !this.#alwaysInContext && (this.#origin === undefined || this.#origin.engine.#hooked === 0);
    checkCompiledParams(signature, native.paramInfo());
    this.block = new LaunchBlock(native, signature, module.device.engine, {
      usedOn: (lane) => module.engine.usedOn(lane),
      checkConfig: (config) => this.checkConfig(config),
      record: (recorder, config, args, block) => (recorder as Recorder & LaunchRecorder).kernel(kernel, config, args, block),
    });
  }

  /** Whether launches go to specializations (see {@link Template}). */
  get specialized(): boolean {
    return this.specializations !== undefined;
  }

  /**
   * Checks and packs `args` for a launch with `config` now, enqueuing nothing: the launch block,
   * header included, as the native launch would read it, for a graph's kernel node or for
   * {@link submitPacked} later. With `lane`, the memory they use is noted as used there.
   */
  packed(config: LaunchConfig, args: KernelArgs<S>, lane?: StreamEngine): Uint8Array {
    return this.block.packed(config, args, lane);
  }

  /**
   * Enqueues a recorded launch on the host device as its CPU implementation runs it: the block
   * and arguments as they were recorded (memory a graph holds may be closed since).
   */
  replayOn(stream: Stream, config: LaunchConfig, block: Uint8Array, args: readonly unknown[]): void {
    this.module.engine.usedOn(stream.engine);
    const context = makeLaunchContext<S>(this.kernel, config, stream, args as KernelArgs<S>, undefined, true); // args: a private copy
    stream.engine.run(this.block.launchCommand(stream.engine, config, block, args, context as unknown as LaunchContext));
  }

  /**
   * Checks `config` as a launch of this kernel is checked (a graph's kernel node too): the
   * device's limits and the dynamic shared memory it allows now.
   * @throws RangeError naming the option.
   */
  checkConfig(config: LaunchConfig): void {
    checkConfigFor(config, this.module.device.engine); // a kernel of specializations: by the one it launches
    if (config.sharedMem !== 0 && !this.specializations) checkDynamicShared(config, this.kernel.name, this.module.device.engine, this.kernel.attributes);
  }

  /** Registers `hook` on the kernel this one stands for (see {@link Kernel.onLaunch}). */
  onLaunch(hook: LaunchHook): Disposer {
    if (this.#origin) return this.#origin.onLaunch(hook);
    const hooks = (this.#hooks ??= new LaunchHooks((delta) => {
      this.#hooked += delta;
      for (const kernel of [this.kernel as unknown as Kernel, ...(this.#onOtherDevices?.values() ?? [])])
        kernel.engine.#contextFree = !kernel.engine.#alwaysInContext && this.#hooked === 0;
    }));
    return hooks.add(hook);
  }

  /**
   * This kernel on `device`: itself on its own device; elsewhere the same code in its module's
   * counterpart there, made on the first launch on a stream of that device (the image loaded
   * there, or compiled for its architecture, once). Until that module has loaded, the
   * counterpart's launches wait in their streams' queues, as a specialization's do. Its hooks are
   * this kernel's.
   * @throws RangeError for a kernel that runs on its own device only (a template's) or a device of
   * another backend.
   */
  on(device: Device): Kernel<S> {
    if (device === this.module.device) return this.kernel;
    const known = this.#onOtherDevices?.get(device);
    if (known) return known as unknown as Kernel<S>;
    const remake = this.#remake;
    if (!remake || this.specializations)
      rangeError('stream', `a stream of ${this.module.device}`, received(`a stream of ${device} (${this.specializations ? "a template's kernels run on the template's device" : 'this kernel runs on its own device only'})`));
    const module = this.module.engine.on(device);
    const origin = this.kernel as unknown as Kernel;
    let kernel: Kernel;
    if (!(module instanceof Promise)) kernel = remake(module, origin);
    else {
      const loaded = () =>
        Promise.resolve(this.module.engine.on(device)).then((ready) => {
          const real = remake(ready, origin);
          this.#onOtherDevices!.set(device, real); // later launches go straight to it
          return real;
        });
      const why = `Kernel '${origin.name}' is still loading on ${device}`;
      kernel = makeKernel(this.module.engine.placeholder(device), origin.name, new CodelessKernel(why), origin.signature, {
        specializations: new Specializations(() => ({}), loaded),
        origin,
      });
    }
    (this.#onOtherDevices ??= new Map()).set(device, kernel);
    return kernel as unknown as Kernel<S>;
  }

  /**
   * The launch fast path; see {@link Stream.launch}. A launch that needs no context (no hook, CPU
   * implementation or specializer) goes straight to the block: this is the path whose every
   * nanosecond bench/launch counts.
   */
  launchOn(stream: Stream, config: LaunchConfig | LaunchOptions, args: KernelArgs<S>, extras?: LaunchExtras): void {
    stream.engine.checkOpen();
    if (this.#module.closed) typeError('kernel', 'a kernel of a loaded module', received('a kernel of a closed Module'));
    if (stream.device !== this.module.device) return this.on(stream.device).engine.launchOn(stream, config, args, extras);
    const checked = this.block.configFor(config);
    if (!this.#contextFree || extras !== undefined || global.size !== 0) return this.#launchInContext(stream, checked, args, extras);
    this.block.launch(stream.engine, checked, args, undefined);
  }

  #checkFor(stream: Stream): void {
    stream.engine.checkOpen();
    if (this.#module.closed) typeError('kernel', 'a kernel of a loaded module', received('a kernel of a closed Module'));
    if (stream.device !== this.module.device)
      rangeError('stream', `a stream of ${this.module.device}`, received(`a stream of ${stream.device}`));
  }

  /** A launch with a context: hooks in their order, then the (replacement) kernel's launch. */
  #launchInContext(stream: Stream, config: LaunchConfig, args: KernelArgs<S>, extras: LaunchExtras | undefined): void {
    if (!isArray(args)) typeError('args', 'an array of kernel arguments', args);
    let context = makeLaunchContext<S>(this.kernel, config, stream, args);
    if (globalHooks.size > 0) context = globalHooks.run(context);
    const own = (this.#origin ?? this.kernel).engine;
    if (own.#hooked > 0) context = own.#hooks!.run(context);
    if (extras?.hooks) context = extras.hooks.run(context);
    const engine = context.kernel.engine;
    if (engine !== this) engine.#checkFor(stream);
    if (engine.specializations) engine.specializations.launch(context as unknown as LaunchContext, extras?.onFailure);
    else engine.block.launch(stream.engine, config, context.given, context);
  }

  /** Enqueues the launch `context` describes, on its stream (a ready specialization's). */
  enqueueIn(context: LaunchContext<S>): void {
    this.block.launch(context.stream.engine, context.config, context.given, context as unknown as LaunchContext);
  }

  /**
   * Launches now with a block that a kernel of the same signature packed when the launch was
   * made (a template's, for its specialization). Returns a CPU kernel's pause.
   */
  submitPacked(lane: StreamEngine, config: LaunchConfig, bytes: Uint8Array, args: KernelArgs<S>, context: LaunchContext<S>): Pause | void {
    return this.block.submitPacked(lane, config, bytes, args, context as unknown as LaunchContext);
  }
}
