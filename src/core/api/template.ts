// Templates: CUDA C++ compiled per specialization. A template's kernel has no compiled code of
// its own; each launch compiles (once per distinct set of defines) or finds its specialization,
// whose defines its specializer computes from the launch's context (their engine is
// kernels/specializations.ts).
import { typeError, received } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import type { CpuKernel } from '../kernels/cpu-kernel.js';
import type { Device } from './device.js';
import { Kernel, type Signature, makeKernel } from './kernel.js';
import { Module, moduleForHost } from './module.js';
import { COMPILE_OPTIONS, checkCompileOptions, type CompileOptions, type Defines } from '../compiler/program.js';
import { CodelessKernel } from '../kernels/codeless-kernel.js';
import type { LaunchContext } from './launch-context.js';
import { LaunchHookError } from './launch-hooks.js';
import { Specializations } from '../kernels/specializations.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';

/**
 * Computes a launch's compile-time defines from its context, e.g.
 * `(launch) => ({ BLOCK_THREADS: launch.block[0] })`; it may be async (the context stays current
 * across its awaits).
 */
export type Specializer<S extends Signature = Signature> = (context: LaunchContext<S>) => Defines | PromiseLike<Defines>;

/** Options for {@link Template.kernel}. */
export interface TemplateKernelOptions<S extends Signature> {
  /** The launch's compile-time defines, from its context (see {@link Specializer}). */
  readonly specialize: Specializer<S>;
  /**
   * The CPU implementation, for the host device; it reads the defines as
   * `currentLaunch().defines`.
   */
  readonly cpu?: CpuKernel<S>;
}

/** The template of `source` on `device`: what {@link Device.template} makes. */
export let makeTemplate: (device: Device, source: string, options?: CompileOptions) => Template;

/**
 * CUDA C++ source whose kernels are compiled per specialization: each launch's defines come from
 * its context (its block size, say), each distinct set is compiled once — also when many launches
 * need it at once — and kept in memory and in the on-disk compile cache. A launch whose
 * specialization is still compiling waits in its stream's queue; the main thread never waits.
 * Create one with {@link Device.template}.
 */
export class Template {
  /** The device its specializations are compiled for. */
  readonly device: Device;
  /** The CUDA C++ source. */
  readonly source: string;
  /** The compile options every specialization starts from (its defines are added to `defines`). */
  readonly options: CompileOptions;
  readonly #placeholder: Module;
  readonly #modules: Module[] = [];
  #closed = false;

  static #make(device: Device, source: string, options: CompileOptions = {}): Template {
    return new Template(CONSTRUCTOR_TOKEN, device, source, options);
  }

  private constructor(token: ConstructorToken, device: Device, source: string, options: CompileOptions = {}) {
    checkConstructorToken(token, 'a Template', 'device.template()');
    if (typeof source !== 'string' || source.length === 0) typeError('source', 'CUDA C++ source text', source);
    checkOptions('options', options, COMPILE_OPTIONS);
    checkCompileOptions(options);
    this.device = device;
    this.source = source;
    this.options = Object.freeze({ ...options });
    this.#placeholder = moduleForHost(device);
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * A kernel of the template: launch it like any kernel; each launch runs `specialize` with its
   * context and goes to the specialization of the defines it gives.
   * @example
   * const reduce = template.kernel('block_sum', ['ptr<f32>', 'ptr<f32>', 'u32'], {
   *   specialize: (launch) => ({ BLOCK_THREADS: launch.block[0] }),
   * });
   * @param name the kernel's name (an `extern "C"` name, or a name expression of `options.expressions`).
   * @param signature its parameter types.
   * @param options `specialize`, and `cpu` for the host device.
   * @returns the kernel; `kernel.specializations()` lists those compiled.
   * @throws TypeError for a bad name, signature or options, or a closed template.
   */
  kernel<const S extends Signature>(name: string, signature: S, options: TemplateKernelOptions<S>): Kernel<S> {
    if (typeof name !== 'string' || name === '') typeError('name', 'a kernel name', name);
    if (this.#closed) typeError('template', 'an open Template', received('a closed Template'));
    checkOptions('options', options, ['cpu', 'specialize']);
    if (typeof options?.specialize !== 'function') typeError('options.specialize', 'a function from the launch context to defines', options?.specialize);
    if (options.cpu !== undefined && typeof options.cpu !== 'function') typeError('options.cpu', 'a function', options.cpu);
    const { cpu } = options;
    if (this.device.kind === 'host' && !cpu)
      typeError('options.cpu', `a CPU implementation of kernel '${name}' to run it on the host device`, undefined);
    const make = async (defines: Readonly<Record<string, string | number | boolean>>) => {
      const module = await this.device.compile(this.source, { ...this.options, defines: { ...this.options.defines, ...defines } });
      const kernel = module.kernel(name, signature, cpu ? { cpu } : {});
      // Launches accepted before close() still run: the module closes once each has told it of
      // its stream (when this resolves), and its unload waits for them.
      if (this.#closed) setImmediate(() => module.close());
      else this.#modules.push(module);
      return kernel;
    };
    return makeKernel(this.#placeholder, name, new CodelessKernel("A template's kernel has no compiled code of its own: its specializations do (kernel.specializations())"), signature, {
      specializations: new Specializations<LaunchContext<S>>(options.specialize, make, (hook, context, cause) => new LaunchHookError(hook, context, cause)),
    });
  }

  /**
   * Unloads every specialization once its launches have finished; kernels of it can no longer be launched. Idempotent.
   * @example
   * const template = device.template(source);
   * // … launches of its kernels …
   * template.close(); // each specialization unloads once its launches have finished
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#placeholder.close();
    for (const module of this.#modules.splice(0)) module.close();
  }

  /**
   * The same as `close()`, for `using`.
   * @example
   * using template = device.template(source); // closed at the end of the block
   */
  [Symbol.dispose](): void {
    this.close();
  }
  static {
    makeTemplate = (device, source, options) => Template.#make(device, source, options);
  }
}
