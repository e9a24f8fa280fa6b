// CUDA C++ compiled by NVRTC on a worker thread, with an on-disk cache of the compiled code.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { addon } from '../native/addon.js';
import { elementsOf, isArray, rangeError, typeError } from '../base/errors.js';
import { checkOptions } from '../base/options.js';

/** Compile-time macros of a specialization, e.g. `{ BLOCK_THREADS: 256 }` (see `Device.template`). */
export type Defines = Readonly<Record<string, string | number | boolean>>;

/** Options for {@link Device.compile}. */
export interface CompileOptions {
  /**
   * The program's file name, as compiler messages show it.
   * @default 'program.cu'
   */
  readonly name?: string;
  /** Macros: `{ N: 256, USE_FAST: true }` becomes `-DN=256 -DUSE_FAST`. */
  readonly defines?: Readonly<Record<string, string | number | boolean>>;
  /** Extra include directories. */
  readonly includePaths?: readonly string[];
  /**
   * The C++ dialect.
   * @default 'c++17'
   */
  readonly std?: 'c++03' | 'c++11' | 'c++14' | 'c++17' | 'c++20' | 'c++23' | 'c++26';
  /** Further NVRTC options, passed as they are (e.g. `['--use_fast_math']`). */
  readonly options?: readonly string[];
  /**
   * Name expressions for kernels whose names are mangled (templates, namespaces), e.g.
   * `['scale<float>']`; `module.kernel('scale<float>', …)` then finds them.
   */
  readonly expressions?: readonly string[];
  /**
   * The architecture: a real one (`sm_90`) gives a cubin, a virtual one (`compute_90`) PTX.
   * @default the device's, e.g. 'sm_90'
   */
  readonly arch?: string;
  /**
   * Where compiled code is cached: a directory, or false to compile every time.
   * @default $RXCUDA_CACHE_DIR, else $XDG_CACHE_HOME/rxcuda, else ~/.cache/rxcuda
   */
  readonly cache?: string | false;
}

/**
 * A compiled program: its image and what is needed to load it.
 *
 * A source that sets a graph condition from device code (its text names `cudaGraphSetConditional`)
 * is compiled as relocatable device code (`-rdc=true` is added to its options, unless they already
 * say `-rdc`/`--relocatable-device-code` or `-dc`), and its image must be linked with the CUDA
 * device runtime, `libcudadevrt.a`, before it loads: {@link Device.compile} and a module's reload
 * on another device do that, through the driver's linker, where they find the library (beside
 * NVRTC, in `$CUDA_PATH/lib64`, or in `/usr/local/cuda`); where they do not, the load rejects
 * with a CudaError (CUDA_ERROR_FILE_NOT_FOUND) that says where they looked. An image loaded with
 * {@link Device.loadModule} is never linked: link it yourself, or compile it with `Device.compile`.
 */
export interface CompiledProgram {
  /** A cubin (for a real architecture) or PTX text (for a virtual one). */
  readonly image: Uint8Array | string;
  /** Whether the image must be linked with the CUDA device runtime (libcudadevrt.a) to load. */
  readonly deviceRuntime: boolean;
  /** Name expressions and the mangled names they stand for. */
  readonly names: ReadonlyMap<string, string>;
  /** What NVRTC printed (warnings); '' when it printed nothing. */
  readonly log: string;
  /** Whether the image came from the on-disk cache. */
  readonly fromCache: boolean;
}

/** The options {@link CompileOptions} declares. */
export const COMPILE_OPTIONS: readonly string[] = ['arch', 'cache', 'defines', 'expressions', 'includePaths', 'name', 'options', 'std'];

/**
 * Macros to define: names of letters, digits and underscores (function-like ones with
 * their parameters, `MAX(a,b)`); strings, finite numbers, bigints or booleans.
 */
export function checkDefines(defines: unknown): Defines {
  if (typeof defines !== 'object' || defines === null || Array.isArray(defines))
    typeError('defines', 'an object of macro names and values', defines);
  for (const [key, value] of Object.entries(defines)) {
    if (!/^[A-Za-z_]\w*(\([\w\s,.]*\))?$/.test(key)) typeError('defines', 'macro names of letters, digits and underscores', key);
    if (!['string', 'number', 'bigint', 'boolean'].includes(typeof value)) typeError(`defines.${key}`, 'a string, number, bigint or boolean', value);
    if (typeof value === 'number' && !Number.isFinite(value)) rangeError(`defines.${key}`, 'a finite number', value);
  }
  return defines as Defines;
}

const ARCH = /^(sm|compute)_\d+[af]?$/;
/** The C++ dialects: those of NVRTC 13, and the next ones, for NVRTC to refuse if it does not know them. */
const STDS = ['c++03', 'c++11', 'c++14', 'c++17', 'c++20', 'c++23', 'c++26'];

/**
 * Checks compile options before anything is compiled, on any device: the host device takes
 * only what a GPU would, also where no compiler checks its sources.
 */
export function checkCompileOptions(options: CompileOptions): void {
  const { name, defines, std, arch, cache } = options;
  if (name !== undefined && (typeof name !== 'string' || name === '')) typeError('name', 'a file name', name);
  if (defines !== undefined) checkDefines(defines);
  if (std !== undefined && !STDS.includes(std)) rangeError('std', `one of ${STDS.join(', ')}`, std);
  if (arch !== undefined && (typeof arch !== 'string' || !ARCH.test(arch))) typeError('arch', "an architecture such as 'sm_90' or 'compute_90'", arch);
  if (cache !== undefined && cache !== false && (typeof cache !== 'string' || cache === '')) typeError('cache', 'a directory, or false', cache);
  for (const list of ['includePaths', 'options', 'expressions'] as const) strings(list, options[list]);
}

function strings(name: string, value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!isArray(value)) typeError(name, 'an array of strings', value);
  const elements = elementsOf(value); // a hole is refused, not skipped
  if (!elements.every((v) => typeof v === 'string')) typeError(name, 'an array of strings', value);
  return elements as string[];
}

/** NVRTC's options for `arch` and `options` (nvcc takes them too). */
export function nvrtcOptions(arch: string, options: CompileOptions): string[] {
  const out = [`--gpu-architecture=${arch}`, `-std=${options.std ?? 'c++17'}`];
  const cudaInclude = join(process.env.CUDA_PATH ?? '/usr/local/cuda', 'include');
  if (existsSync(cudaInclude)) out.push(`-I${cudaInclude}`);
  for (const dir of strings('includePaths', options.includePaths)) out.push(`-I${dir}`);
  for (const [key, value] of Object.entries(options.defines ?? {})) {
    if (value === false) continue;
    out.push(value === true ? `-D${key}` : `-D${key}=${value}`);
  }
  return [...out, ...strings('options', options.options)];
}

/** The text that marks a source as one that needs the device runtime linked (see {@link CompiledProgram}). */
const DEVICE_RUNTIME_CALL = 'cudaGraphSetConditional';
/** Options that already choose relocatable (or whole-program) device code. */
const RELOCATABLE = /^(-rdc|--relocatable-device-code)[=\s]|^(-dc|--device-c)$/;

/**
 * NVRTC's options for `source` (see {@link nvrtcOptions}), and whether its code must be linked
 * with the device runtime: a source that sets a graph condition from device code is compiled as
 * relocatable device code, whose call the linker resolves in libcudadevrt.a.
 */
export function programOptions(source: string, arch: string, options: CompileOptions): { flags: string[]; deviceRuntime: boolean } {
  const flags = nvrtcOptions(arch, options);
  const deviceRuntime = source.includes(DEVICE_RUNTIME_CALL);
  if (deviceRuntime && !flags.some((f) => RELOCATABLE.test(f))) flags.push('-rdc=true');
  return { flags, deviceRuntime };
}

/** Where compiled code is cached (see {@link CompileOptions.cache}), or undefined for nowhere. */
export function cacheDir(option: string | false | undefined): string | undefined {
  if (option === false) return undefined;
  if (option !== undefined) return option;
  if (process.env.RXCUDA_CACHE_DIR) return process.env.RXCUDA_CACHE_DIR;
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'rxcuda');
}

/** The JSON cached at `path`.json, or undefined where there is none (or it cannot be read). */
export async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(`${path}.json`, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Caches `value` as JSON at `path`.json in `dir`, whole or not at all (a cache that cannot be written costs a compile). */
export async function writeJson(dir: string, path: string, value: unknown): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(tmp, JSON.stringify(value));
    await rename(tmp, `${path}.json`);
  } catch {
    // Compiled again next time.
  }
}

async function readCache(path: string): Promise<CompiledProgram | undefined> {
  try {
    const meta = JSON.parse(await readFile(`${path}.json`, 'utf8')) as { names: [string, string][]; log: string; ptx: boolean; deviceRuntime?: boolean };
    // An entry that does not say whether it is linked (written before it was asked) is compiled again.
    if (typeof meta.deviceRuntime !== 'boolean') return undefined;
    const data = await readFile(`${path}.bin`);
    const image = meta.ptx ? data.toString('utf8') : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    return { image, deviceRuntime: meta.deviceRuntime, names: new Map(meta.names), log: meta.log, fromCache: true };
  } catch {
    return undefined; // missing or unreadable: compile again
  }
}

async function writeCache(dir: string, path: string, program: CompiledProgram): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    const ptx = typeof program.image === 'string';
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(`${tmp}.bin`, program.image);
    await writeFile(`${tmp}.json`, JSON.stringify({ names: [...program.names], log: program.log, ptx, deviceRuntime: program.deviceRuntime }));
    // The .bin lands first: a reader that finds the .json finds a complete image beside it.
    await rename(`${tmp}.bin`, `${path}.bin`);
    await rename(`${tmp}.json`, `${path}.json`);
  } catch {
    // A cache that cannot be written only costs a compile next time.
  }
}

/**
 * Compiles CUDA C++ with NVRTC on a worker thread (or finds the result in the on-disk cache),
 * without loading it: load the image with {@link Device.loadModule}, or use {@link Device.compile}
 * to do both. Needs NVRTC, not a device.
 * A source that sets a graph condition from device code (`cudaGraphSetConditional`) is compiled
 * with `-rdc=true`, and its result says `deviceRuntime: true`: its image loads only once linked
 * with libcudadevrt.a (see {@link CompiledProgram}).
 * @param options `arch` is required here (there is no device to take it from).
 * @throws NvrtcError with the compiler's log when compilation fails.
 * @example
 * const { image, log } = await compile(source, { arch: 'sm_90' }); // no device needed
 * await writeFile('saxpy.cubin', image);
 * if (log) console.warn(log);
 */
export async function compile(source: string, options: CompileOptions & { readonly arch: string }): Promise<CompiledProgram> {
  if (typeof source !== 'string' || source.length === 0) typeError('source', 'CUDA C++ source text', source);
  checkOptions('options', options, COMPILE_OPTIONS);
  if (options === undefined) typeError('options', 'options with an `arch`', options);
  return compileProgram(source, options.arch, options);
}

/** Compiles (or finds in the cache) a program for `defaultArch`. */
export async function compileProgram(source: string, defaultArch: string, options: CompileOptions): Promise<CompiledProgram> {
  checkCompileOptions(options);
  const arch = options.arch ?? defaultArch;
  if (typeof arch !== 'string' || !ARCH.test(arch)) typeError('arch', "an architecture such as 'sm_90' or 'compute_90'", arch);
  const name = options.name ?? 'program.cu';
  const { flags, deviceRuntime } = programOptions(source, arch, options);
  const expressions = strings('expressions', options.expressions);
  const nvrtc = addon.driverInfo().nvrtc;
  const dir = cacheDir(options.cache);
  const key = createHash('sha256')
    .update(JSON.stringify([1, source, flags, expressions, nvrtc.version, arch]))
    .digest('hex');
  const path = dir && join(dir, key);
  if (path) {
    const cached = await readCache(path);
    if (cached) return cached;
  }
  const out = await addon.compile(source, name, flags, [...expressions]);
  const program: CompiledProgram = {
    image: out.cubin ?? out.ptx,
    deviceRuntime,
    names: new Map(expressions.map((e, i) => [e, out.lowered[i]!])),
    log: out.log,
    fromCache: false,
  };
  if (dir && path) await writeCache(dir, path, program);
  return program;
}
