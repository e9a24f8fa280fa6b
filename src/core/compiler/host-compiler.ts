// The CUDA compiler the host device checks kernel sources with, found once: NVRTC where the addon
// loads it, else `nvcc` (on the PATH, else in $CUDA_PATH/bin or /usr/local/cuda/bin), run as a
// child process. Where there is none, kernel sources are not checked, and a warning says so once,
// when the first is compiled; RXCUDA_HOST_CHECK=require makes that an error instead.
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, join } from 'node:path';
import { NvrtcError, RxcudaError } from '../base/errors.js';
import { addon } from '../native/addon.js';

/** The code of the warning that says, once, that the host device does not check kernel sources. */
export const HOST_UNCHECKED_WARNING = 'RXCUDA_HOST_UNCHECKED';

/**
 * How the host device checks kernel sources (see {@link hostCompiler}): with NVRTC or `nvcc`, of
 * `version`, at `path`; or not at all, and `problem` says why.
 */
export type HostCompilerInfo =
  | {
      /** Kernel sources are compiled on the host device too. */
      readonly checked: true;
      /** NVRTC (the GPU's own compiler, loaded by the addon), else nvcc. */
      readonly compiler: 'nvrtc' | 'nvcc';
      /** Its version, as "major.minor" (e.g. "13.0"). */
      readonly version: string;
      /** The library or the executable. */
      readonly path: string;
    }
  | {
      /** Kernel sources are not checked on the host device. */
      readonly checked: false;
      /** Why: what was looked for, and where. */
      readonly problem: string;
    };

/** Where nvcc is looked for, in order: the PATH, then the CUDA toolkit's own folder. */
export function nvccCandidates(): string[] {
  const path = (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'nvcc'));
  return [...path, join(process.env.CUDA_PATH ?? '/usr/local/cuda', 'bin', 'nvcc')];
}

/** Whether `file` is a file this process may execute. */
export function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

let found: Promise<HostCompilerInfo> | undefined;

/**
 * Which CUDA compiler the host device checks kernel sources with: NVRTC where the addon finds it
 * (as on a GPU), else `nvcc` on the PATH (or in `$CUDA_PATH/bin`, else `/usr/local/cuda/bin`).
 * With one, {@link Device.compile} on the host device compiles each source as a GPU would: a
 * compile error is an `NvrtcError` with the log, a kernel name that is not an entry of the code is
 * refused, and a signature is checked against the compiled parameters. Without one, sources are
 * not checked, which a warning (code `RXCUDA_HOST_UNCHECKED`) says once, when the first is
 * compiled; with `RXCUDA_HOST_CHECK=require` in the environment, such a compile is refused
 * instead, with an `NvrtcError` of code -1 (for a CI that wants the check). Found once per process.
 * @example
 * const check = await hostCompiler();
 * console.log(check.checked ? `kernel sources checked by ${check.compiler} ${check.version}` : check.problem);
 */
export function hostCompiler(): Promise<HostCompilerInfo> {
  return (found ??= find());
}

async function find(): Promise<HostCompilerInfo> {
  const { nvrtc } = addon.driverInfo();
  if (nvrtc.available) return { checked: true, compiler: 'nvrtc', version: nvrtc.version, path: nvrtc.path };
  const candidates = nvccCandidates();
  const nvcc = candidates.find(executable);
  const none = `no CUDA compiler was found: no NVRTC (see Device.driverInfo().nvrtc.problem), and no nvcc (tried ${[...new Set(candidates)].join(', ')})`;
  if (!nvcc) return { checked: false, problem: none };
  try {
    const { stdout } = await run(nvcc, ['--version'], process.cwd());
    const version = /release (\d+\.\d+)/.exec(stdout)?.[1];
    if (version) return { checked: true, compiler: 'nvcc', version, path: nvcc };
    return { checked: false, problem: `${nvcc} did not say its version: ${stdout.trim() || 'it printed nothing'}` };
  } catch (error) {
    return { checked: false, problem: `${nvcc} did not run: ${(error as Error).message}` };
  }
}

/** The variable that says what the host device does with a source it cannot check: `warn` (the default) or `require`. */
export const HOST_CHECK_VARIABLE = 'RXCUDA_HOST_CHECK';

/** RXCUDA_HOST_CHECK's value: `require` for an error, else (unset, empty or `warn`) a warning. */
function requireCheck(): boolean {
  const mode = process.env[HOST_CHECK_VARIABLE];
  if (mode === undefined || mode === '' || mode === 'warn') return false;
  if (mode === 'require') return true;
  throw new RxcudaError(`${HOST_CHECK_VARIABLE} is ${JSON.stringify(mode)}: it takes "warn" (the default: a source that cannot be checked is taken, with a warning) or "require" (it is refused)`);
}

const warned = new Set<string>();

/**
 * What the host device does with a kernel source it could not check, for `why`: under
 * RXCUDA_HOST_CHECK=require, rejects with an NvrtcError (code -1, as a GPU without NVRTC
 * does); else warns, once per reason, and resolves once the warning is out (Node emits it on the
 * next tick), so that it comes before what the compile's caller does next.
 */
export async function unchecked(why: string): Promise<undefined> {
  if (requireCheck()) {
    throw new NvrtcError(-1, `The host device cannot check this kernel source against a CUDA compiler, and ${HOST_CHECK_VARIABLE}=require asks it to: ${why}`, '');
  }
  if (warned.has(why)) return undefined;
  warned.add(why);
  process.emitWarning(`The host device does not check kernel sources against a CUDA compiler, as a GPU would: ${why}. ` +
    `Kernel typos, wrong names and wrong signatures show up only on a GPU (${HOST_CHECK_VARIABLE}=require makes this an error).`, { code: HOST_UNCHECKED_WARNING });
  await new Promise<void>((resolve) => process.nextTick(resolve));
  return undefined;
}

/** What a child process printed, and its exit code (0 when it succeeded). */
export interface RunOutput {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

// Compiler processes at once: compiles beyond this wait their turn, so that a burst of modules
// (a test suite's) does not start a process for each.
const MOST = Math.max(1, Math.floor(availableParallelism() / 2));
let running = 0;
const waiting: (() => void)[] = [];

/**
 * Runs `file` with `args` in `cwd` off the main thread (a child process, one of {@link MOST} at
 * once), in this process's environment without what the loader preloads into it (a sanitizer's
 * runtime, an allocator): those are this process's, and the gcc that nvcc runs crashes under a
 * sanitizer's runtime.
 */
export async function run(file: string, args: readonly string[], cwd: string): Promise<RunOutput> {
  if (running >= MOST) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  const { LD_PRELOAD: _preloaded, ...env } = process.env;
  try {
    return await new Promise<RunOutput>((resolve, reject) =>
      execFile(file, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20, timeout: 300_000 }, (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') reject(error); // it did not start, or was killed
        else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
      }),
    );
  } finally {
    running--;
    waiting.shift()?.();
  }
}
