// Kernels with declared signatures and the launch fast path: the signature builds a packer once;
// each launch writes its arguments into a preallocated block and makes one native call.
import type { KernelAttributes, KernelLauncher, NativeKernel } from '../native/addon.js';
import type { Pause } from '../queue/scheduler.js';
import { toBFloat16Bits, toHalfBits, type DType } from '../base/dtype.js';
import type { TypedPointer } from './pointer.js';
import { checkCount, checkOptions, isArray, rangeError, typeError, received } from '../base/errors.js';
import { Memory } from '../memory/memory.js';
import { LaunchConfig, type LaunchOptions } from './launch-config.js';
import { HEADER_BYTES, STREAM_WORD, badArgument, buildPacker, checkSignature, describeParam, paramLayout } from './packer.js';
import { LaunchContext } from './launch-context.js';
import { globalHooks, LaunchHooks, type Disposer, type LaunchHook } from './launch-hooks.js';

// Read by every launch: a module constant, not an imported binding (whose reads cost a check each).
const global = globalHooks;
import { Specializations } from './specialization.js';
import { CodelessKernel } from './codeless-kernel.js';
import type { Device } from '../device/device.js';
import type { Module } from './module.js';
import type { Stream } from '../device/stream.js';

/** A struct passed by value: its size in bytes (and alignment, default 8), given as raw bytes. */
export interface StructParam {
  /** The struct's size in bytes, a positive integer. */
  readonly struct: number;
  /** The struct's alignment in bytes: 1, 2, 4, 8 or 16 (default 8). */
  readonly align?: number;
}

/**
 * One kernel parameter: a scalar element type, a pointer (`'ptr'`, or `'ptr<f32>'` that says what
 * it points to), or a struct by value.
 */
export type ParamType = DType | 'ptr' | TypedPointer | StructParam;

/** A kernel's parameter list, e.g. `['u32', 'f32', 'ptr<f32>', 'ptr<f32>']`. */
export type Signature = readonly ParamType[];

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
        : ArrayBuffer | ArrayBufferView;

/** Arguments of a kernel with signature S, one per parameter. */
export type KernelArgs<S extends Signature> = { readonly [K in keyof S]: ArgOf<S[K]> };

/** @internal What a launch from the `launch` operator adds to a plain one. */
export interface LaunchExtras {
  /** The pipeline's hooks, after the global and the kernel's. */
  readonly hooks?: LaunchHooks | undefined;
  /** Where a failure found after the call returned goes (a specialization that did not compile). */
  readonly onFailure?: ((error: unknown) => void) | undefined;
}

/** @internal How a kernel is made beyond its native function. */
export interface KernelOptions<S extends Signature> {
  /** Its launches need a context: a CPU implementation reads it through currentLaunch(). */
  readonly contextual?: boolean;
  /** Its launches go to the specialization of their context (see specialization.ts). */
  readonly specializations?: Specializations<S> | undefined;
  /** The same kernel in `module`, the kernel's module on another device (see {@link Kernel.on}). */
  readonly remake?: ((module: Module, origin: Kernel<S>) => Kernel<S>) | undefined;
  /** The kernel this one stands for on its device: its hooks are that kernel's. */
  readonly origin?: Kernel<S> | undefined;
}

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
  readonly #native: NativeKernel;
  readonly #launch: KernelLauncher;
  readonly #header: Uint32Array;
  readonly #pack: (args: readonly unknown[], stream: Stream | undefined) => void;
  readonly #bytes: Uint8Array;
  #lastConfig: LaunchConfig | undefined;
  #lastStream: Stream | undefined;
  #attributes: KernelAttributes | undefined;
  #hooks: LaunchHooks | undefined;
  /** A CPU implementation or a specializer: its launches need a context, hooks or not. */
  readonly #contextual: boolean;
  /** Hooks registered on this kernel now. */
  #hooked = 0;
  /** Neither of the two: without global hooks, a launch builds no context. */
  #plain: boolean;
  // Kept without its signature, so that a Kernel<S> stays a Kernel<Signature>.
  readonly #specializations: Specializations<Signature> | undefined;
  // These too: the kernel's makers and counterparts on other devices.
  readonly #remake: ((module: Module, origin: Kernel) => Kernel) | undefined;
  readonly #origin: Kernel | undefined;
  /** This kernel on other devices, made on a first launch there (see {@link on}). */
  #elsewhere: Map<Device, Kernel> | undefined;

  /** @internal Use {@link Module.kernel} or {@link Template.kernel}. */
  constructor(module: Module, name: string, native: NativeKernel, signature: S, options: KernelOptions<S> = {}) {
    checkSignature(signature);
    this.module = module;
    this.name = name;
    this.signature = Object.freeze([...signature]) as unknown as S;
    this.#native = native;
    this.#specializations = options.specializations as Specializations<Signature> | undefined;
    this.#contextual = options.contextual === true || options.specializations !== undefined;
    this.#remake = options.remake as ((module: Module, origin: Kernel) => Kernel) | undefined;
    this.#origin = options.origin as Kernel | undefined;
    this.#plain = !this.#contextual && (this.#origin === undefined || this.#origin.#hooked === 0);
    const layouts = signature.map(paramLayout);
    Kernel.#checkAgainstDriver(native, layouts.map((l) => l.size), signature);
    const offsets: number[] = [];
    let end = 0;
    for (const { size, align } of layouts) {
      end = Math.ceil(end / align) * align;
      offsets.push(end);
      end += size;
    }
    const block = new ArrayBuffer(HEADER_BYTES + Math.ceil(end / 16) * 16);
    this.#bytes = new Uint8Array(block);
    this.#header = new Uint32Array(block);
    const device = module.device;
    const views = {
      i8: new Int8Array(block), u8: new Uint8Array(block), i16: new Int16Array(block),
      u16: new Uint16Array(block), i32: new Int32Array(block), u32: this.#header,
      f32: new Float32Array(block), f64: new Float64Array(block), i64: new BigInt64Array(block),
      u64: new BigUint64Array(block), half: toHalfBits, bhalf: toBFloat16Bits, Memory, device,
      bad: (i: number, v: unknown) => badArgument(signature, device, i, v),
      wrongCount: (a: unknown) =>
        isArray(a)
          ? typeError('args', `${signature.length} arguments (${signature.map(describeParam).join(', ')})`, received(`${a.length}`))
          : typeError('args', 'an array of kernel arguments', a),
      structBytes: (i: number, v: unknown, size: number) => {
        const bytes = ArrayBuffer.isView(v) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
          : v instanceof ArrayBuffer ? new Uint8Array(v) : undefined;
        if (!bytes || bytes.byteLength !== size) badArgument(signature, device, i, v);
        return bytes;
      },
    };
    this.#pack = buildPacker(signature, offsets, views);
    this.#launch = native.bind(block, Uint32Array.from(offsets));
  }

  static #checkAgainstDriver(native: NativeKernel, sizes: number[], signature: Signature): void {
    const info = native.paramInfo();
    if (!info) return;
    const same = info.length === sizes.length && info.every((p, i) => p.size === sizes[i]);
    if (!same)
      typeError(
        'signature',
        `${info.length} parameters of ${info.map((p) => p.size).join(', ') || 'no'} bytes, as the kernel declares`,
        received(`[${signature.map(describeParam).join(', ')}] (${sizes.join(', ') || 'no'} bytes)`),
      );
  }

  /** @internal The native kernel (a graph's kernel nodes name it). */
  get nativeKernel(): NativeKernel {
    return this.#native;
  }

  /**
   * @internal Checks and packs `args` for a launch with `config` now, enqueuing nothing: the
   * launch block, header included, as the native launch would read it, for a graph's kernel node
   * or for {@link submitPacked} later. With `stream`, the memory they use is noted as used there.
   */
  packed(config: LaunchConfig, args: KernelArgs<S>, stream?: Stream): Uint8Array {
    this.#pack(args, stream);
    const block = this.#bytes.slice();
    new Uint32Array(block.buffer, 0, config.header.length).set(config.header);
    return block;
  }

  /**
   * @internal Enqueues a recorded launch on the host device as its CPU implementation runs it:
   * the block and arguments as they were recorded (memory a graph holds may be closed since).
   */
  replayOn(stream: Stream, config: LaunchConfig, block: Uint8Array, args: readonly unknown[]): void {
    this.module.usedOn(stream);
    stream.run(this.#launchCommand(stream, config, block, args, new LaunchContext<S>(this, config, stream, args as KernelArgs<S>)));
  }

  /** The device the kernel runs on. */
  get device(): Device {
    return this.module.device;
  }

  /** The CUfunction handle, for other CUDA code. */
  get handle(): bigint {
    return this.#native.handle();
  }

  /** Registers, shared and local memory, PTX and binary versions, as the driver reports them. */
  get attributes(): KernelAttributes {
    return (this.#attributes ??= Object.freeze(this.#native.attributes()));
  }

  /**
   * Allows launches with up to `bytes` of dynamic shared memory (above the default 48 KiB).
   * @throws CudaError when the device cannot provide it.
   */
  setMaxDynamicSharedMemory(bytes: number): void {
    checkCount('bytes', bytes);
    this.#native.setAttribute(8, bytes);
    this.#attributes = undefined;
  }

  /** How many blocks of `blockSize` threads can be active on one multiprocessor at once. */
  maxActiveBlocks(blockSize: number, sharedMem = 0): number {
    checkCount('blockSize', blockSize, 1);
    checkCount('sharedMem', sharedMem);
    return this.#native.occupancy(blockSize, sharedMem);
  }

  /**
   * The block size that maximizes occupancy, and the smallest grid that fills the device with it.
   * @param options `sharedMem` per block (default 0), `blockLimit` (default 0: no limit).
   */
  suggestedBlockSize(options: { sharedMem?: number; blockLimit?: number } = {}): {
    /** Threads per block that give the most resident blocks per multiprocessor. */
    blockSize: number;
    /** The fewest blocks of `blockSize` that fill every multiprocessor. */
    minGridSize: number;
  } {
    checkOptions('options', options);
    const { sharedMem = 0, blockLimit = 0 } = options;
    checkCount('sharedMem', sharedMem);
    checkCount('blockLimit', blockLimit);
    return this.#native.suggestBlockSize(sharedMem, blockLimit);
  }

  /**
   * Registers a hook called before each launch of this kernel, after the global hooks (see
   * {@link onLaunch} for the order and {@link LaunchHook} for what a hook may do).
   * @param hook the hook.
   * @returns a disposer that unregisters it.
   * @throws TypeError when `hook` is not a function.
   */
  onLaunch(hook: LaunchHook<S>): Disposer {
    if (this.#origin) return this.#origin.onLaunch(hook as unknown as LaunchHook);
    const hooks = (this.#hooks ??= new LaunchHooks((delta) => {
      this.#hooked += delta;
      for (const kernel of [this, ...(this.#elsewhere?.values() ?? [])]) kernel.#plain = !kernel.#contextual && this.#hooked === 0;
    }));
    return hooks.add(hook as unknown as LaunchHook);
  }

  /**
   * @internal This kernel on `device`: itself on its own device; elsewhere the same code in its
   * module's counterpart there, made on the first launch on a stream of that device (the image
   * loaded there, or compiled for its architecture, once). Until that module has loaded, the
   * counterpart's launches wait in their streams' queues, as a specialization's do. Its hooks are
   * this kernel's.
   * @throws RangeError for a kernel that runs on its own device only (a template's) or a device of
   * another backend.
   */
  on(device: Device): Kernel<S> {
    if (device === this.module.device) return this;
    const known = this.#elsewhere?.get(device);
    if (known) return known as unknown as Kernel<S>;
    const remake = this.#remake;
    if (!remake || this.#specializations)
      rangeError('stream', `a stream of ${this.module.device}`, received(`a stream of ${device} (${this.#specializations ? "a template's kernels run on the template's device" : 'this kernel runs on its own device only'})`));
    const module = this.module.on(device);
    const origin = this as unknown as Kernel;
    let kernel: Kernel;
    if (!(module instanceof Promise)) kernel = remake(module, origin);
    else {
      const loaded = () =>
        Promise.resolve(this.module.on(device)).then((ready) => {
          const real = remake(ready, origin);
          this.#elsewhere!.set(device, real); // later launches go straight to it
          return real;
        });
      const why = `Kernel '${this.name}' is still loading on ${device}`;
      kernel = new Kernel(this.module.placeholder(device), this.name, new CodelessKernel(why), this.signature as Signature, {
        specializations: new Specializations(() => ({}), loaded),
        origin,
      });
    }
    (this.#elsewhere ??= new Map()).set(device, kernel);
    return kernel as unknown as Kernel<S>;
  }

  /**
   * The specializations compiled so far, for a kernel with a specializer (see
   * {@link Template.kernel}): their defines, and whether the compiled code came from the disk cache.
   */
  specializations(): readonly {
    /** The macros the specialization was compiled with. */
    readonly defines: Readonly<Record<string, string | number | boolean>>;
    /** Whether its compiled code came from the disk cache rather than from NVRTC. */
    readonly fromCache: boolean;
  }[] {
    return this.#specializations?.compiled() ?? [];
  }

  /** @internal Whether launches go to specializations (see {@link Template}). */
  get specialized(): boolean {
    return this.#specializations !== undefined;
  }

  /**
   * @internal The launch fast path; see {@link Stream.launch}. A launch that needs no context (no
   * hook, CPU implementation or specializer) is written out here rather than through #enqueue:
   * this is the path whose every nanosecond bench/launch counts.
   */
  launchOn(stream: Stream, config: LaunchConfig | LaunchOptions, args: KernelArgs<S>, extras?: LaunchExtras): void {
    stream.checkOpen();
    if (this.module.closed) typeError('kernel', 'a kernel of a loaded module', received('a kernel of a closed Module'));
    if (stream.device !== this.module.device) return this.on(stream.device).launchOn(stream, config, args, extras);
    let checked = this.#lastConfig;
    // The same LaunchConfig, or plain options that say the same as the last one: nothing to check.
    if (checked === undefined || (config !== checked && !checked.matches(config))) {
      checked = LaunchConfig.from(config);
      checked.checkFor(stream.device);
      this.#header.set(checked.header);
      this.#lastConfig = checked;
    }
    if (!this.#plain || extras !== undefined || global.size !== 0) return this.#launchInContext(stream, checked, args, extras);
    if (stream !== this.#lastStream) this.#onStream(stream);
    this.#pack(args, stream);
    if (!stream.direct) return this.#queue(stream, checked, args, undefined);
    stream.counted();
    let pause;
    try {
      pause = this.#launch(stream, checked, args);
    } catch (error) {
      stream.device.fail(error);
    }
    if (pause) stream.pause(pause);
  }

  #checkFor(stream: Stream): void {
    stream.checkOpen();
    if (this.module.closed) typeError('kernel', 'a kernel of a loaded module', received('a kernel of a closed Module'));
    if (stream.device !== this.module.device)
      rangeError('stream', `a stream of ${this.module.device}`, received(`a stream of ${stream.device}`));
  }

  /** A launch with a context: hooks in their order, then the (replacement) kernel's launch. */
  #launchInContext(stream: Stream, config: LaunchConfig, args: KernelArgs<S>, extras: LaunchExtras | undefined): void {
    if (!isArray(args)) typeError('args', 'an array of kernel arguments', args);
    let context = new LaunchContext<S>(this, config, stream, args);
    if (globalHooks.size > 0) context = globalHooks.run(context);
    const own = this.#origin ?? this;
    if (own.#hooked > 0) context = own.#hooks!.run(context);
    if (extras?.hooks) context = extras.hooks.run(context);
    const kernel = context.kernel;
    if (kernel !== this) kernel.#checkFor(stream);
    if (kernel.#specializations) kernel.#specializations.launch(context as unknown as LaunchContext, extras?.onFailure);
    else kernel.#enqueue(stream, config, context.given, context);
  }

  /** @internal Enqueues the launch `context` describes, on its stream (a ready specialization's). */
  enqueueIn(context: LaunchContext<S>): void {
    this.#enqueue(context.stream, context.config, context.given, context);
  }

  /** Enqueues now when the stream is direct, else in its queue (see scheduler.ts). */
  #enqueue(stream: Stream, config: LaunchConfig, args: KernelArgs<S>, context: LaunchContext<S> | undefined): void {
    this.#prepare(stream, config, args);
    if (!stream.direct) return this.#queue(stream, config, args, context);
    stream.counted();
    let pause;
    try {
      pause = this.#launch(stream, config, args, context);
    } catch (error) {
      stream.device.fail(error);
    }
    if (pause) stream.pause(pause);
  }

  /**
   * @internal Launches now with a block that a kernel of the same signature packed when the launch
   * was made (a template's, for its specialization): the arguments were checked then, and memory
   * closed since is freed behind this launch, in stream order. Returns a CPU kernel's pause.
   */
  submitPacked(stream: Stream, config: LaunchConfig, bytes: Uint8Array, args: KernelArgs<S>, context: LaunchContext<S>): Pause | void {
    this.#bytes.set(bytes); // its header holds `config` (see packed)
    this.#lastConfig = config;
    this.#lastStream = undefined;
    this.#onStream(stream);
    try {
      return this.#launch(stream, config, args, context);
    } catch (error) {
      stream.device.fail(error);
    }
  }

  /** Writes the launch's header and arguments into the block: what the native launch reads. */
  #prepare(stream: Stream, config: LaunchConfig, args: KernelArgs<S>): void {
    if (config !== this.#lastConfig) {
      this.#header.set(config.header);
      this.#lastConfig = config;
    }
    if (stream !== this.#lastStream) this.#onStream(stream);
    this.#pack(args, stream);
  }

  /** Writes the stream's handle into the launch header. */
  #onStream(stream: Stream): void {
    this.#header[STREAM_WORD] = stream.lo;
    this.#header[STREAM_WORD + 1] = stream.hi;
    this.#lastStream = stream;
    this.module.usedOn(stream);
  }

  /**
   * A launch behind work in the stream's queue: the packed block and the arguments are copied
   * now (later changes by the caller do not reach the kernel) and put back when it goes.
   */
  #queue(stream: Stream, config: LaunchConfig, args: readonly unknown[], context: LaunchContext<S> | undefined): void {
    const bytes = this.#bytes.slice();
    const given = context ? context.given : args.slice(); // a private copy: nobody else can change it
    const capture = stream.capturing;
    if (capture) return capture.kernel(this as unknown as Kernel, config, given, bytes);
    stream.run(this.#launchCommand(stream, config, bytes, given, context));
  }

  /** The command that launches with `bytes` as the block, when the stream's queue gets to it. */
  #launchCommand(stream: Stream, config: LaunchConfig, bytes: Uint8Array, args: readonly unknown[], context: LaunchContext<S> | undefined) {
    return () => {
      this.#bytes.set(bytes);
      this.#header[STREAM_WORD] = stream.lo; // a replayed block was packed for another stream
      this.#header[STREAM_WORD + 1] = stream.hi;
      this.#lastConfig = config;
      this.#lastStream = stream;
      return this.#launch(stream, config, args, context);
    };
  }
}
