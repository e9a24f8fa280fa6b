// Kernels with declared signatures: the public Kernel checks what it is given and delegates to
// its engine (kernels/kernel-engine.ts: the launch fast path, hooks and context, the kernel on
// other devices), which it hands how to make the public objects a launch hands user code.
import { brand, checkCount } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import type { Defines } from '../compiler/program.js';
import type { KernelAttributes, NativeKernel } from '../native/types.js';
import type { Device } from './device.js';
import type { Stream } from './stream.js';
import type { Recorder } from '../device/recorder.js';
import type { LaunchRecorder } from '../graphs/node-work.js';
import type { BlockSizeSuggestion, CompiledSpecialization, Signature, TypedPointer } from '../kernels/kernel-types.js';
import type { DType } from '../base/dtype.js';
import type { Memory } from './memory.js';
import type { GraphCondition } from '../device/condition.js';
import { KernelEngine, type KernelFaces, type KernelOptions } from '../kernels/kernel-engine.js';
import type { LaunchConfig } from '../kernels/launch-config.js';
import { type LaunchContext, makeLaunchContext } from './launch-context.js';
import { LaunchHookError, type Disposer, type LaunchHook } from './launch-hooks.js';
import type { Module } from './module.js';
import { checkSignature } from '../kernels/packer.js';
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

/**
 * The kernel `name` of `module`, run by `native` (Module.kernel and Template.kernel make
 * them; the constructor is private, so that only rxcuda makes kernels).
 */
export let makeKernel: <S extends Signature>(module: Module, name: string, native: NativeKernel, signature: S, options?: KernelOptions) => Kernel<S>;

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
  readonly engine: KernelEngine<KernelArgs<S>>;
  #attributes: KernelAttributes | undefined;
  static {
    brand(this, (value) => #attributes in value);
  }

  static #make<S extends Signature>(module: Module, name: string, native: NativeKernel, signature: S, options: KernelOptions = {}): Kernel<S> {
    return new Kernel(CONSTRUCTOR_TOKEN, module, name, native, signature, options);
  }

  private constructor(token: ConstructorToken, module: Module, name: string, native: NativeKernel, signature: S, options: KernelOptions = {}) {
    checkConstructorToken(token, 'a Kernel', 'module.kernel() or template.kernel()');
    checkSignature(signature);
    this.module = module;
    this.name = name;
    this.signature = Object.freeze([...signature]) as unknown as S;
    this.engine = new KernelEngine(this, native, signature, options, faces);
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
    return this.engine.onLaunch(hook);
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
 * What a kernel's engine makes of the public classes: a launch's context, a kernel (standing for
 * one on a device its module still loads on), a hook's error; and a launch given to a recorder,
 * which names the kernel as a graph node's.
 */
const faces: KernelFaces = {
  context: (kernel: Kernel, config: LaunchConfig, stream: Stream, args: readonly unknown[], defines?: Defines, copied?: boolean) =>
    makeLaunchContext(kernel, config, stream, args, defines, copied),
  kernel: (module: Module, name: string, native: NativeKernel, signature: Signature, options: KernelOptions) => makeKernel(module, name, native, signature, options),
  hookFailed: function hookFailed(hook: string, context: LaunchContext, cause: unknown): Error {
    const error = new LaunchHookError(hook, context, cause);
    Error.captureStackTrace(error, hookFailed); // its stack starts where the hook ran, as it did before this maker
    return error;
  },
  record: (recorder: Recorder, kernel: Kernel, config: LaunchConfig, args: readonly unknown[], block: Uint8Array) =>
    (recorder as Recorder & LaunchRecorder).kernel(kernel, config, args, block), // every recorder a lane holds is a GraphRecorder
};
