// The host device's check of a kernel source: compiled to PTX as a GPU would compile it (NVRTC,
// else nvcc in a child process), off the main thread and cached on disk beside the GPU's
// compiles, for the names of its kernel entries and the sizes and alignments of their parameters.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { NvrtcError } from '../base/errors.js';
import { addon } from '../native/addon.js';
import { hostCompiler, run, unchecked } from './host-compiler.js';
import { cacheDir, programOptions, readJson, writeJson, type CompileOptions } from './program.js';
import { probedNames, probes, ptxEntries, type PtxParam } from './ptx.js';

/** What the check learnt of a source: its kernel entries and their parameters, and what the compiler said. */
export interface HostChecked {
  /** Each kernel entry's parameters, by the entry's (lowered) name. */
  readonly entries: ReadonlyMap<string, readonly PtxParam[]>;
  /** Name expressions and the names they were lowered to. */
  readonly names: ReadonlyMap<string, string>;
  /** The compiler's warnings; '' when it printed nothing. */
  readonly log: string;
  readonly fromCache: boolean;
}

/**
 * The virtual architecture sources are checked for: the one of `arch` where it is given, else
 * compute_90, which every CUDA 12 and 13 compiler knows and which takes what older GPUs take.
 */
function checkArch(arch: string | undefined): string {
  return arch === undefined ? 'compute_90' : arch.replace(/^sm_/, 'compute_');
}

/** nvrtcCompileProgram's NVRTC_ERROR_COMPILATION, and nvrtcGetLoweredName's NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID. */
const COMPILATION = 6;
const NAME_EXPRESSION_NOT_VALID = 10;

/**
 * Compiles `source` with `options` as a GPU would, for the host device's check: rejects with an
 * NvrtcError (and the compiler's log) where it does not compile. Resolves to undefined where no
 * compiler checks it (said once, in a warning, when the first source is compiled), or rejects
 * with an NvrtcError of code -1 there under RXCUDA_HOST_CHECK=require.
 */
export async function checkOnHost(source: string, options: CompileOptions): Promise<HostChecked | undefined> {
  const compiler = await hostCompiler();
  if (!compiler.checked) return unchecked(compiler.problem);
  // With the GPU's options: -rdc=true too for a source that sets a graph condition from device
  // code (its call is left to the linker, which the host device never runs).
  const { flags } = programOptions(source, checkArch(options.arch), options);
  const expressions = options.expressions ?? [];
  const dir = cacheDir(options.cache);
  const key = createHash('sha256').update(JSON.stringify([1, compiler, source, flags, expressions])).digest('hex');
  const path = dir && join(dir, `${key}.host`);
  const cached = path ? await readJson<{ entries: [string, PtxParam[]][]; names: [string, string][]; log: string }>(path) : undefined;
  if (cached) return { entries: new Map(cached.entries), names: new Map(cached.names), log: cached.log, fromCache: true };
  const name = options.name ?? 'program.cu';
  const compiled =
    compiler.compiler === 'nvrtc'
      ? await addon.compile(source, name, flags, [...expressions]).then((out) => ({ ptx: out.ptx, lowered: out.lowered, log: out.log }))
      : await withNvcc(compiler.path, compiler.version, source, basename(name), flags, expressions);
  if (!compiled) return undefined;
  const checked = { entries: ptxEntries(compiled.ptx), names: new Map(expressions.map((e, i) => [e, compiled.lowered[i]!])), log: compiled.log, fromCache: false };
  if (dir && path) await writeJson(dir, path, { entries: [...checked.entries], names: [...checked.names], log: checked.log });
  return checked;
}

/**
 * `source` compiled to PTX by nvcc in a folder of its own, with NVRTC's options (which nvcc
 * takes too, but macros: it splits their definitions at commas, so they go in a header it
 * includes first) and a probe for each name expression; undefined, and a warning (an error
 * under RXCUDA_HOST_CHECK=require), when nvcc refuses an option (one that NVRTC alone knows):
 * that is not the source's fault.
 */
async function withNvcc(nvcc: string, version: string, source: string, name: string, flags: readonly string[], expressions: readonly string[]) {
  const folder = await mkdtemp(join(tmpdir(), 'rxcuda-check-'));
  try {
    await writeFile(join(folder, name), source + probes(expressions));
    const defines = flags.filter((f) => f.startsWith('-D')).map((f) => `#define ${f.slice(2).replace('=', ' ')}\n`);
    await writeFile(join(folder, 'rxcuda-defines.h'), defines.join(''));
    const args = ['-ptx', '--pre-include', 'rxcuda-defines.h', ...flags.filter((f) => !f.startsWith('-D')), name, '-o', 'out.ptx'];
    const out = await run(nvcc, args, folder);
    const fatal = /^nvcc fatal\s*:\s*(.*)$/m.exec(out.stderr);
    if (fatal) return unchecked(`nvcc ${version} cannot compile it as NVRTC would (${fatal[1]!.trim()})`);
    const log = out.stderr.trim();
    if (out.code !== 0) throw new NvrtcError(COMPILATION, `nvrtcCompileProgram failed: NVRTC_ERROR_COMPILATION (the host device's check, by nvcc ${version})`, log);
    const ptx = await readFile(join(folder, 'out.ptx'), 'utf8');
    const lowered = probedNames(ptx, expressions.length);
    const missing = lowered.findIndex((l) => l === undefined);
    if (missing >= 0) throw new NvrtcError(NAME_EXPRESSION_NOT_VALID, `nvrtcGetLoweredName failed: NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID (${expressions[missing]})`, log);
    return { ptx, lowered: lowered as string[], log };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
