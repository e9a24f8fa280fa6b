// A kernel's engine, below the public Kernel (api/kernel.ts), which checks and delegates to it: the
// launch fast path, where a launch writes its arguments into a preallocated block (launch-block.ts)
// and makes one native call; a launch that needs a context (hooks, a CPU implementation, a
// specializer) builds it first. It names the kernel, its module, the stream and the context by
// what it needs of them, and is handed how to make the public objects it hands user code.
import { isArray, rangeError, received, typeError } from '../base/errors.js';
import type { Defines } from '../compiler/program.js';
import type { Recorder } from '../device/recorder.js';
import type { KernelAttributes, NativeKernel } from '../native/types.js';
import type { Pause } from '../queue/scheduler.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import { CodelessKernel } from './codeless-kernel.js';
import type { CompiledSpecialization, Signature } from './kernel-types.js';
import { LaunchBlock } from './launch-block.js';
import { checkConfigFor, checkDynamicShared, type LaunchConfig, type LaunchOptions } from './launch-config.js';
import { globalHooks, LaunchHooks, type Hook, type HookDisposer, type HookedLaunch } from './launch-hooks.js';
import type { ModuleDevice } from './module-engine.js';
import { checkCompiledParams } from './packer.js';
import { Specializations } from './specializations.js';

// Read by every launch: a module constant, not an imported binding (whose reads cost a check each).
const global = globalHooks;

/** A module, as a kernel's engine needs it (a public Module is one). */
export interface KernelModule {
  readonly device: ModuleDevice;
  /** Whether its compiled code came from the disk cache (a specialization's is listed with it). */
  readonly fromCache: boolean;
  readonly engine: {
    /** Read by every launch. */
    readonly closed: boolean;
    /** Notes that `lane` launched the kernel: the module's unload waits for it. */
    usedOn(lane: StreamEngine): void;
    /** The module's code on `device`, loaded there on the first ask. */
    on(device: ModuleDevice): KernelModule | Promise<KernelModule>;
    /** A module with no code on `device`. */
    placeholder(device: ModuleDevice): KernelModule;
  };
}

/** A stream, as a kernel's engine launches on it (a public Stream is one). */
export interface KernelStream {
  readonly engine: StreamEngine<Recorder>;
  readonly device: ModuleDevice;
}

/** A kernel, as its engine needs it, and the kernels it stands for or launches instead (a public Kernel is one). */
export interface EngineKernel {
  readonly name: string;
  readonly signature: Signature;
  readonly module: KernelModule;
  readonly device: ModuleDevice;
  /** What the driver reports of it: the dynamic shared memory it allows now. */
  readonly attributes: KernelAttributes;
  readonly engine: KernelEngine;
}

/** A launch's context, as a kernel's engine needs it (a public LaunchContext is one). */
export interface KernelLaunch extends HookedLaunch<KernelLaunch> {
  readonly kernel: EngineKernel;
  readonly stream: KernelStream;
  readonly config: LaunchConfig;
  /** The arguments as given: the launch's own copy. */
  readonly given: readonly unknown[];
  with(changes: { readonly kernel?: EngineKernel; readonly args?: readonly unknown[]; readonly defines?: Defines }): KernelLaunch;
}

/**
 * What a kernel's engine makes of the public classes, and how it hands a launch to a recording
 * (graphs/, above this folder, declares what a recorder takes): the public Kernel hands it down.
 * Methods, so that the Kernel's can take the public objects the engine hands them back; functions
 * that do not read `this`, since the engine hands `hookFailed` on to the hooks and specializations.
 */
export interface KernelFaces {
  /** A launch's context (a LaunchContext), for its hooks, its specializer or its CPU implementation. */
  context(kernel: EngineKernel, config: LaunchConfig, stream: KernelStream, args: readonly unknown[], defines?: Defines, copied?: boolean): KernelLaunch;
  /** A kernel of `module` (a Kernel): one that stands for a kernel whose module still loads on another device. */
  kernel(module: KernelModule, name: string, native: NativeKernel, signature: Signature, options: KernelOptions): EngineKernel;
  /** The error of a hook or a specializer that failed for `context` (a LaunchHookError). */
  hookFailed(hook: string, context: KernelLaunch, cause: unknown): Error;
  /** Gives a launch of `kernel` to a recording lane's recorder: `args` and `block` are the launch's own. */
  record(recorder: Recorder, kernel: EngineKernel, config: LaunchConfig, args: readonly unknown[], block: Uint8Array): void;
}

/** A kernel's specializations, as its engine launches through them and lists them (a Specializations is one). */
export interface KernelSpecializations {
  launch(context: KernelLaunch, onFailure: ((error: unknown) => void) | undefined): void;
  compiled(): readonly CompiledSpecialization[];
}

/** What a launch from the `launch` operator adds to a plain one. */
export interface LaunchExtras {
  /** The pipeline's hooks, after the global and the kernel's. */
  readonly hooks?: LaunchHooks | undefined;
  /** Where a failure found after the call returned goes (a specialization that did not compile). */
  readonly onFailure?: ((error: unknown) => void) | undefined;
}

/** How a kernel is made beyond its native function. */
export interface KernelOptions {
  /** Its launches need a context: a CPU implementation reads it through currentLaunch(). */
  readonly contextual?: boolean;
  /** Its launches go to the specialization of their context (see specializations.ts). */
  readonly specializations?: KernelSpecializations | undefined;
  /**
   * The same kernel in `module`, the kernel's module on another device, standing for `origin`
   * there (see KernelEngine.on). A method, so that the public Module's can take the module as the
   * Module it is: the engine hands it only what that module's engine made.
   */
  remake?(module: KernelModule, origin: EngineKernel): EngineKernel;
  /** The kernel this one stands for on its device: its hooks are that kernel's. */
  readonly origin?: EngineKernel | undefined;
}

/**
 * What only rxcuda uses of a kernel: its native kernel and launch block, the launch fast path,
 * its hooks, and the kernel on other devices. `A` types the arguments its launches and packing
 * take (the public Kernel's by its signature).
 */
export class KernelEngine<A extends readonly unknown[] = readonly unknown[]> {
  /** The kernel it runs. */
  readonly kernel: EngineKernel;
  /** Its module (the kernel's), read by every launch. */
  readonly module: KernelModule;
  /** Its module's engine, whose `closed` every launch reads. */
  readonly #module: KernelModule['engine'];
  /** The native kernel (a graph's kernel nodes name it). */
  readonly native: NativeKernel;
  /** Whether a struct is among its parameters: only then can the same arguments (`Object.is`) pack other bytes. */
  readonly packsStructs: boolean;
  /** Whether a `'condition'` is among its parameters: only launches recorded into a graph take one. */
  readonly takesConditions: boolean;
  /** The block its launches write into. */
  readonly block: LaunchBlock;
  /** Where its launches go, for a kernel of specializations (see specializations.ts). */
  readonly specializations: KernelSpecializations | undefined;
  #hooks: LaunchHooks | undefined;
  /** A CPU implementation or a specializer: its launches need a context, hooks or not. */
  readonly #alwaysInContext: boolean;
  /** Hooks registered on this kernel now. */
  #hooked = 0;
  /** Neither of the two: without global hooks, a launch builds no context. */
  #contextFree: boolean;
  // These too: the kernel's maker on another device, and the kernel this one stands for there.
  readonly #remake: ((module: KernelModule, origin: EngineKernel) => EngineKernel) | undefined;
  readonly #origin: EngineKernel | undefined;
  /** This kernel on other devices, made on a first launch there (see {@link on}). */
  #onOtherDevices: Map<ModuleDevice, EngineKernel> | undefined;
  /** How it makes a launch's context, a kernel, a hook's error, and records a launch. */
  readonly #faces: KernelFaces;

  /** The engine of `kernel`, run by `native`; `faces` makes the public objects it hands user code. */
  constructor(kernel: EngineKernel, native: NativeKernel, signature: Signature, options: KernelOptions, faces: KernelFaces) {
    const module = kernel.module;
    this.kernel = kernel;
    this.module = module;
    this.#module = module.engine;
    this.native = native;
    this.packsStructs = signature.some((p) => typeof p !== 'string');
    this.takesConditions = signature.includes('condition');
    this.specializations = options.specializations;
    this.#alwaysInContext = options.contextual === true || options.specializations !== undefined;
    this.#remake = options.remake;
    this.#origin = options.origin;
    this.#contextFree = !this.#alwaysInContext && (this.#origin === undefined || this.#origin.engine.#hooked === 0);
    this.#faces = faces;
    checkCompiledParams(signature, native.paramInfo());
    this.block = new LaunchBlock(native, signature, module.device.engine, {
      usedOn: (lane) => module.engine.usedOn(lane),
      checkConfig: (config) => this.checkConfig(config),
      record: (recorder, config, args, block) => faces.record(recorder, kernel, config, args, block),
    });
  }

  /** Whether launches go to specializations (a template's kernel's). */
  get specialized(): boolean {
    return this.specializations !== undefined;
  }

  /**
   * Checks and packs `args` for a launch with `config` now, enqueuing nothing: the launch block,
   * header included, as the native launch would read it, for a graph's kernel node or for
   * {@link submitPacked} later. With `lane`, the memory they use is noted as used there.
   */
  packed(config: LaunchConfig, args: A, lane?: StreamEngine): Uint8Array {
    return this.block.packed(config, args, lane);
  }

  /**
   * Enqueues a recorded launch on the host device as its CPU implementation runs it: the block
   * and arguments as they were recorded (memory a graph holds may be closed since).
   */
  replayOn(stream: KernelStream, config: LaunchConfig, block: Uint8Array, args: readonly unknown[]): void {
    this.module.engine.usedOn(stream.engine);
    const context = this.#faces.context(this.kernel, config, stream, args, undefined, true); // args: a private copy
    stream.engine.run(this.block.launchCommand(stream.engine, config, block, args, context));
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

  /** Registers `hook` on the kernel this one stands for (see Kernel.onLaunch). */
  onLaunch(hook: Hook): HookDisposer {
    if (this.#origin) return this.#origin.engine.onLaunch(hook);
    const hooks = (this.#hooks ??= new LaunchHooks((delta) => {
      this.#hooked += delta;
      for (const kernel of [this.kernel, ...(this.#onOtherDevices?.values() ?? [])])
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
  on(device: ModuleDevice): EngineKernel {
    if (device === this.module.device) return this.kernel;
    const known = this.#onOtherDevices?.get(device);
    if (known) return known;
    const remake = this.#remake;
    if (!remake || this.specializations)
      rangeError('stream', `a stream of ${this.module.device}`, received(`a stream of ${device} (${this.specializations ? "a template's kernels run on the template's device" : 'this kernel runs on its own device only'})`));
    const module = this.module.engine.on(device);
    const origin = this.kernel;
    let kernel: EngineKernel;
    if (!(module instanceof Promise)) kernel = remake(module, origin);
    else {
      const loaded = () =>
        Promise.resolve(this.module.engine.on(device)).then((ready) => {
          const real = remake(ready, origin);
          this.#onOtherDevices!.set(device, real); // later launches go straight to it
          return real;
        });
      const why = `Kernel '${origin.name}' is still loading on ${device}`;
      kernel = this.#faces.kernel(this.module.engine.placeholder(device), origin.name, new CodelessKernel(why), origin.signature, {
        specializations: new Specializations<KernelLaunch>(() => ({}), loaded, this.#faces.hookFailed),
        origin,
      });
    }
    (this.#onOtherDevices ??= new Map()).set(device, kernel);
    return kernel;
  }

  /**
   * The launch fast path; see Stream.launch. A launch that needs no context (no hook, CPU
   * implementation or specializer) goes straight to the block: this is the path whose every
   * nanosecond bench/launch counts.
   */
  launchOn(stream: KernelStream, config: LaunchConfig | LaunchOptions, args: A, extras?: LaunchExtras): void {
    stream.engine.checkOpen();
    if (this.#module.closed) typeError('kernel', 'a kernel of a loaded module', received('a kernel of a closed Module'));
    if (stream.device !== this.module.device) return this.on(stream.device).engine.launchOn(stream, config, args, extras);
    const checked = this.block.configFor(config);
    if (!this.#contextFree || extras !== undefined || global.size !== 0) return this.#launchInContext(stream, checked, args, extras);
    this.block.launch(stream.engine, checked, args, undefined);
  }

  #checkFor(stream: KernelStream): void {
    stream.engine.checkOpen();
    if (this.#module.closed) typeError('kernel', 'a kernel of a loaded module', received('a kernel of a closed Module'));
    if (stream.device !== this.module.device)
      rangeError('stream', `a stream of ${this.module.device}`, received(`a stream of ${stream.device}`));
  }

  /** A launch with a context: hooks in their order, then the (replacement) kernel's launch. */
  #launchInContext(stream: KernelStream, config: LaunchConfig, args: readonly unknown[], extras: LaunchExtras | undefined): void {
    if (!isArray(args)) typeError('args', 'an array of kernel arguments', args);
    let context = this.#faces.context(this.kernel, config, stream, args);
    if (globalHooks.size > 0) context = globalHooks.run(context, this.#faces.hookFailed);
    const own = (this.#origin ?? this.kernel).engine;
    if (own.#hooked > 0) context = own.#hooks!.run(context, this.#faces.hookFailed);
    if (extras?.hooks) context = extras.hooks.run(context, this.#faces.hookFailed);
    const engine = context.kernel.engine;
    if (engine !== this) engine.#checkFor(stream);
    if (engine.specializations) engine.specializations.launch(context, extras?.onFailure);
    else engine.block.launch(stream.engine, config, context.given, context);
  }

  /** Enqueues the launch `context` describes, on its stream (a ready specialization's). */
  enqueueIn(context: KernelLaunch): void {
    this.block.launch(context.stream.engine, context.config, context.given, context);
  }

  /**
   * Launches now with a block that a kernel of the same signature packed when the launch was
   * made (a template's, for its specialization). Returns a CPU kernel's pause.
   */
  submitPacked(lane: StreamEngine, config: LaunchConfig, bytes: Uint8Array, args: readonly unknown[], context: KernelLaunch): Pause | void {
    return this.block.submitPacked(lane, config, bytes, args, context);
  }
}
