// Modules: cubin, fatbin or PTX images loaded on a device, and the kernels looked up in them. Each
// module's engine (kernels/module-engine.ts) keeps its loaded image, the lanes that used it, what
// holds it and its code on other devices.
import { isArrayBuffer, plainView, typedArrayName } from '../base/buffers.js';
import { addon } from '../native/addon.js';
import type { NativeModule } from '../native/types.js';
import { brand, CudaError, typeError, received } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import { refusal } from '../base/thenable.js';
import { checkOnHost, type HostChecked } from '../compiler/host-check.js';
import { COMPILE_OPTIONS, checkCompileOptions, compileProgram, type CompileOptions } from '../compiler/program.js';
import type { PtxParam } from '../compiler/ptx.js';
import { Kernel, makeKernel } from './kernel.js';
import type { Signature } from '../kernels/kernel-types.js';
import { readSignature } from '../kernels/packer.js';
import { CpuLauncher, type CpuKernel } from '../kernels/cpu-kernel.js';
import type { Device } from './device.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';
import { ModuleEngine, type Reload as EngineReload } from '../kernels/module-engine.js';
import type { EngineKernel } from '../kernels/kernel-engine.js';

/** A module image: PTX text, or cubin / fatbin / PTX bytes. */
export type ModuleImage = string | Uint8Array | ArrayBuffer;

const ELF_MAGIC = [0x7f, 0x45, 0x4c, 0x46];
const FATBIN_MAGIC = [0x50, 0xed, 0x55, 0xba];

function startsWith(bytes: Uint8Array, magic: number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

/** The bytes the driver expects: PTX text must end in a NUL byte, binaries are passed as they are. */
function imageBytes(image: ModuleImage): Uint8Array {
  if (typeof image === 'string') return new TextEncoder().encode(`${image}\0`);
  // Read through its slots (buffers.ts), so that its own getters cannot say another length.
  const bytes = isArrayBuffer(image) ? new Uint8Array(image) : typedArrayName(image) === 'Uint8Array' ? plainView(image) : undefined;
  if (bytes === undefined || bytes.length === 0)
    typeError('image', 'PTX text or non-empty cubin, fatbin or PTX bytes (Uint8Array)', image);
  if (startsWith(bytes, ELF_MAGIC) || startsWith(bytes, FATBIN_MAGIC) || bytes[bytes.length - 1] === 0) return bytes;
  const terminated = new Uint8Array(bytes.length + 1);
  terminated.set(bytes);
  return terminated;
}

/**
 * The path of libcudadevrt.a, the CUDA device runtime that code setting a graph condition from
 * device code is linked with before it loads.
 * @throws CudaError (CUDA_ERROR_FILE_NOT_FOUND) naming the places it was looked for.
 */
function deviceRuntimeLibrary(): string {
  const found = addon.deviceRuntimeLibrary();
  if (found !== null) return found;
  const call = 'cuLinkAddFile';
  throw new CudaError(301, 'CUDA_ERROR_FILE_NOT_FOUND', call,
    `${call} failed: CUDA_ERROR_FILE_NOT_FOUND (libcudadevrt.a, the CUDA device runtime, was not found; looked in ${addon.deviceRuntimePlaces().join(', ')}): ` +
    'code that sets a graph condition from device code (cudaGraphSetConditional) must be linked with it. ' +
    "Install the CUDA toolkit's libcudadevrt.a, or set CUDA_PATH to a toolkit that has it");
}

/** Loads a module's code on another device (its image again, or compiled for that device). */
export type Reload = EngineReload<Module, Device>;

/**
 * What {@link Device.loadModule} and {@link Device.compile} do (the constructor is private, so
 * that only rxcuda makes modules). Checks the image at once;
 * the driver's load runs on a worker thread once the device's known work is done (see
 * CompletionPoints.whenQuiet). With `deviceRuntime`, the image is linked with libcudadevrt.a
 * there first (see CompiledProgram); the Promise rejects with a CudaError where that library
 * is not found, or with the linker's log where the link fails.
 */
export let loadModuleImage: (device: Device, image: ModuleImage, names?: ReadonlyMap<string, string>, log?: string, fromCache?: boolean, deviceRuntime?: boolean, reload?: Reload) => Promise<Module>;

/**
 * A module of the host device: its kernels run through their CPU implementations,
 * each an entry of the compiled code and declared as it is there, when the source was `checked`.
 */
export let moduleForHost: (device: Device, checked?: HostChecked) => Module;

/** See {@link Device.compile}: `source` compiled for `device` and loaded there. */
export async function compileModule(device: Device, source: string, options?: CompileOptions): Promise<Module> {
  if (typeof source !== 'string' || source.length === 0) typeError('source', 'CUDA C++ source text', source);
  checkOptions('options', options, COMPILE_OPTIONS);
  checkCompileOptions(options ?? {});
  device.engine.checkUsable();
  if (device.kind === 'host') return moduleForHost(device, await checkOnHost(source, options ?? {}));
  const { image, deviceRuntime, names, log, fromCache } = await compileProgram(source, device.arch, options ?? {});
  // On another device of the same architecture the image loads as it is; else it is compiled
  // for that device (a given `arch` is kept: a PTX image, say, loads on any newer device).
  const reload = (other: Device): Promise<Module> =>
    other.arch === device.arch || options?.arch !== undefined ? loadModuleImage(other, image, names, log, fromCache, deviceRuntime, reload) : compileModule(other, source, options);
  return loadModuleImage(device, image, names, log, fromCache, deviceRuntime, reload);
}

/**
 * A loaded module. Get one with {@link Device.loadModule} or {@link Device.compile}. Its kernels
 * launch on streams of other devices too: the module is loaded there on the first such launch
 * (the same image, or the source compiled again for another architecture), once per device.
 */
export class Module {
  /** The device it is loaded on. */
  readonly device: Device;
  /** @internal Its loaded image, the lanes that used it, and its code on other devices. */
  readonly engine: ModuleEngine<Module, Device>;
  /** What the compiler printed while compiling it (warnings), or '' for loaded images. */
  readonly log: string;
  /** Whether the compiled code came from the on-disk cache. */
  readonly fromCache: boolean;
  readonly #names: ReadonlyMap<string, string>;
  /** On the host device, the kernel entries its source was checked to have (none when it was not checked). */
  readonly #entries: ReadonlyMap<string, readonly PtxParam[]> | undefined;
  static {
    brand(this, (value) => #names in value);
  }

  private constructor(token: ConstructorToken, device: Device, native: NativeModule | undefined, names: ReadonlyMap<string, string>, log: string, fromCache: boolean, reload?: Reload, entries?: ReadonlyMap<string, readonly PtxParam[]>) {
    checkConstructorToken(token, 'a Module', 'device.compile() or device.loadModule()');
    this.#entries = entries;
    this.device = device;
    this.engine = new ModuleEngine<Module, Device>(this, native, reload, (other) => moduleForHost(other));
    this.#names = names;
    this.log = log;
    this.fromCache = fromCache;
  }

  static #load(
    device: Device,
    image: ModuleImage,
    names: ReadonlyMap<string, string> = new Map(),
    log = '',
    fromCache = false,
    deviceRuntime = false,
    reload: Reload = (other) => Module.#load(other, image, names, log, fromCache, deviceRuntime),
  ): Promise<Module> {
    const bytes = imageBytes(image);
    if (device.kind === 'host')
      typeError('device', 'a CUDA device to load a module image', received('the host device (give kernels CPU implementations instead)'));
    let library: string | undefined;
    const missing = deviceRuntime ? refusal(() => (library = deviceRuntimeLibrary())) : undefined;
    if (missing) return missing;
    return new Promise<void>((resolve) => device.engine.completionPoints.whenQuiet(resolve))
      .then(() => (library === undefined ? addon.loadModule(device.engine.native, bytes) : addon.loadModule(device.engine.native, bytes, library)))
      .then(
      (handle) => new Module(CONSTRUCTOR_TOKEN, device, new addon.Module(device.engine.native, handle), names, log, fromCache, reload),
      (error: unknown) => device.engine.fail(error),
    );
  }

  static #forHost(device: Device, checked?: HostChecked): Module {
    const reload = (other: Device) => Module.#forHost(other, checked);
    return new Module(CONSTRUCTOR_TOKEN, device, undefined, checked?.names ?? new Map(), checked?.log ?? '', checked?.fromCache ?? false, reload, checked?.entries);
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.engine.closed;
  }

  /**
   * The kernel `name` (an `extern "C"` name, a mangled name, or a name expression given to
   * `compile` such as `scale<float>`), with its parameter types.
   * @throws TypeError for a bad signature, or one the driver's parameter info contradicts;
   * CudaError (CUDA_ERROR_NOT_FOUND) when the module has no such kernel.
   * @example
   * const saxpy = module.kernel('saxpy', ['u32', 'f32', 'ptr<f32>', 'ptr<f32>'], {
   *   cpu: (_config, [n, a, x, y]) => { for (let i = 0; i < n; i++) y[i] = Math.fround(a * x[i]! + y[i]!); },
   * });
   */
  kernel<const S extends Signature>(name: string, signature: S, options: { readonly cpu?: CpuKernel<S> } = {}): Kernel<S> {
    if (typeof name !== 'string' || name === '') typeError('name', 'a kernel name', name);
    checkOptions('options', options, ['cpu']);
    const params = readSignature(signature) as S; // read once: what is checked is what is used
    if (this.engine.closed) typeError('module', 'a loaded Module', received('a closed Module'));
    const { cpu } = options;
    if (cpu !== undefined && typeof cpu !== 'function') typeError('options.cpu', 'a function', cpu);
    if (!this.engine.native) {
      const compiled = this.#checkedParams(name);
      if (!cpu)
        typeError('options.cpu', `a CPU implementation of kernel '${name}' to run it on the host device`, undefined);
      return makeKernel(this, name, new CpuLauncher(cpu as CpuKernel, name, params, compiled), params, {
        contextual: true,
        remake: (module: Module, origin) => module.#remade(origin, name, params, options),
      });
    }
    let native;
    try {
      native = new addon.Kernel(this.engine.native, this.#names.get(name) ?? name);
    } catch (error) {
      this.device.engine.fail(error);
    }
    return makeKernel(this, name, native, params, { remake: (module: Module, origin) => module.#remade(origin, name, params, options) });
  }

  /** `name` in this module (another device's), standing for `origin` there. */
  #remade<S extends Signature>(origin: EngineKernel, name: string, signature: S, options: { readonly cpu?: CpuKernel<S> }): Kernel<S> {
    if (!this.engine.native) return makeKernel(this, name, new CpuLauncher(options.cpu as CpuKernel, name, signature, this.#checkedParams(name)), signature, { contextual: true, origin });
    let native;
    try {
      native = new addon.Kernel(this.engine.native, this.#names.get(name) ?? name);
    } catch (error) {
      this.device.engine.fail(error);
    }
    return makeKernel(this, name, native, signature, { origin });
  }

  /**
   * The parameters of kernel `name` in the checked code of a host-device module (undefined when it was
   * not checked); a name that is not an entry there is refused as a GPU's driver refuses it.
   */
  #checkedParams(name: string): readonly PtxParam[] | undefined {
    if (!this.#entries) return undefined;
    const params = this.#entries.get(this.#names.get(name) ?? name);
    if (params) return params;
    const known = [...this.#entries.keys()].join(', ') || 'none';
    throw new CudaError(500, 'CUDA_ERROR_NOT_FOUND', 'cuModuleGetFunction', `cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (named symbol not found): the compiled code has no kernel '${name}' (its kernels: ${known})`);
  }

  /**
   * Unloads the module once every launch already enqueued from it has finished, and the rest of
   * the device's known work too (on a worker thread: the driver's unload waits for the whole
   * device); its kernels can no longer be launched. Idempotent.
   * @example
   * stream.launch(saxpy, config, args);
   * module.close(); // unloaded once the launch has finished
   */
  close(): void {
    this.engine.close();
  }

  /**
   * The same as `close()`, for `using`.
   * @example
   * {
   *   using module = await device.compile(source);
   *   stream.launch(module.kernel('saxpy', signature), config, args);
   * } // unloaded once its launches have finished
   */
  [Symbol.dispose](): void {
    this.close();
  }
  static {
    loadModuleImage = (device, image, names, log, fromCache, deviceRuntime, reload) => Module.#load(device, image, names, log, fromCache, deviceRuntime, reload);
    moduleForHost = (device, checked) => Module.#forHost(device, checked);
  }
}
