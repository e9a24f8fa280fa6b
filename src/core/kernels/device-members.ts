// What kernels add to the device layer's classes: Device's compile, loadModule and template,
// Stream's launch, and the launch a recording stream hands to its recorder. Added here, where
// modules and kernels are known, the way a method file of a large class adds its methods.
import { isInstance, typeError } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import { refusal } from '../base/thenable.js';
import { Device } from '../device/device.js';
import { Stream } from '../device/stream.js';
import { Kernel, type KernelArgs, type Signature } from './kernel.js';
import type { LaunchConfig, LaunchOptions } from './launch-config.js';
import { Module, type ModuleImage, loadModuleImage, moduleForHost } from './module.js';
import { COMPILE_OPTIONS, checkCompileOptions, compileProgram, type CompileOptions } from '../compiler/program.js';
import { Template, makeTemplate } from './template.js';
import { checkOnHost } from '../compiler/host-check.js';

declare module '../device/device.js' {
  interface Device {
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
    loadModule(image: ModuleImage): Promise<Module>;

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
    compile(source: string, options?: CompileOptions): Promise<Module>;

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
    template(source: string, options?: CompileOptions): Template;
  }
}

declare module '../device/stream.js' {
  interface Stream {
    /**
     * Launches `kernel` with a grid, a block and arguments that match its signature. Everything is
     * checked before anything is enqueued; the launch itself is one native call.
     * @throws TypeError/RangeError naming the bad argument; CudaError when the driver refuses.
     * @example
     * stream.launch(saxpy, { grid: Math.ceil(n / 256), block: 256 }, [n, 2, x, y]);
     */
    launch<S extends Signature>(kernel: Kernel<S>, config: LaunchConfig | LaunchOptions, args: KernelArgs<S>): void;
  }
}

Device.prototype.loadModule = function loadModule(this: Device, image: ModuleImage): Promise<Module> {
  return refusal(() => this.engine.checkUsable()) ?? loadModuleImage(this, image);
};

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

Device.prototype.compile = function (this: Device, source: string, options?: CompileOptions): Promise<Module> {
  return compileModule(this, source, options);
};

Device.prototype.template = function template(this: Device, source: string, options?: CompileOptions): Template {
  this.engine.checkUsable();
  return makeTemplate(this, source, options);
};

Stream.prototype.launch = function launch<S extends Signature>(this: Stream, kernel: Kernel<S>, config: LaunchConfig | LaunchOptions, args: KernelArgs<S>): void {
  if (!isInstance(kernel, Kernel)) typeError('kernel', 'a Kernel', kernel);
  // Options (hooks) it has none of, rather than leave them unread: hooks are a kernel's, global or a pipeline's.
  if (arguments.length > 3) typeError('options', 'absent (hooks go to kernel.onLaunch, onLaunch or the launch operator)', arguments[3]);
  (kernel as Kernel<S>).engine.launchOn(this, config, args);
};
