// The system tools some tests need (headless Chromium, nats-server, tmux, a CUDA compiler), found
// once, and `describe`s that skip without them, saying which tool is missing and how to install it.
// CI names the tools it installs in RXCUDA_EXPECT_TOOLS (`chromium,nats-server,tmux,nvcc`, or
// `all`): there a missing tool fails the tests that need it instead of skipping them.
// Each tool can be pointed at a binary (or at nothing: `/nonexistent`) by its variable.
import { delimiter, join } from 'node:path';
import { describe, type TestOptions } from 'vitest';
import { Device } from '../../src/index.js';
import { executable, nvccCandidates } from '../../src/core/compiler/host-compiler.js';

export type ToolName = 'chromium' | 'nats-server' | 'tmux' | 'nvcc';

/** A tool as found here: its path, or why there is none and how to get one. */
export interface Tool {
  readonly name: ToolName;
  /** The binary (for nvcc: NVRTC's library where the addon loads it); undefined where none was found. */
  readonly path: string | undefined;
  /** Where it was looked for and how to install it; '' where it was found. */
  readonly problem: string;
}

interface Lookup {
  /** The variable that names the binary, which replaces the search. */
  readonly variable: string;
  /** The binary's names, looked for on the PATH and then in `folders`. */
  readonly names: readonly string[];
  readonly folders: readonly string[];
  readonly install: string;
}

const LOOKUPS: Record<Exclude<ToolName, 'nvcc'>, Lookup> = {
  chromium: { variable: 'RXCUDA_CHROMIUM', names: ['chromium', 'chromium-browser'], folders: ['/usr/bin'], install: 'apt-get install -y chromium' },
  'nats-server': { variable: 'NATS_SERVER', names: ['nats-server'], folders: ['/usr/sbin', '/usr/local/sbin', '/sbin'], install: 'apt-get install -y nats-server' },
  tmux: { variable: 'RXCUDA_TMUX', names: ['tmux'], folders: [], install: 'apt-get install -y tmux' },
};

function lookUp(name: Exclude<ToolName, 'nvcc'>): Tool {
  const { variable, names, folders, install } = LOOKUPS[name];
  const given = process.env[variable];
  const path = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  const candidates = given ? [given] : [...new Set([...path, ...folders])].flatMap((dir) => names.map((n) => join(dir, n)));
  const found = candidates.find(executable);
  if (found) return { name, path: found, problem: '' };
  const where = given ? `${variable}=${given} is not an executable` : `not on the PATH${folders.length ? ` or in ${folders.join(', ')}` : ''}`;
  return { name, path: undefined, problem: `${name} is not installed (${where}): install it (as root: apt-get update && ${install}; .ci/run does), or set ${variable} to the binary` };
}

/** The host device's CUDA compiler: NVRTC where the addon loads it, else nvcc where the host device looks for it. */
function lookUpCompiler(): Tool {
  const nvrtc = Device.driverInfo().nvrtc;
  if (nvrtc.available) return { name: 'nvcc', path: nvrtc.path, problem: '' };
  const candidates = nvccCandidates();
  const found = candidates.find(executable);
  if (found) return { name: 'nvcc', path: found, problem: '' };
  return {
    name: 'nvcc',
    path: undefined,
    problem: `no CUDA compiler (no NVRTC, and no nvcc in ${[...new Set(candidates)].join(', ')}): install the CUDA toolkit, and put its bin/ on the PATH or set CUDA_PATH`,
  };
}

const found = new Map<ToolName, Tool>();

/** `name` as found here, looked up once per process. */
export function findTool(name: ToolName): Tool {
  let tool = found.get(name);
  if (!tool) found.set(name, (tool = name === 'nvcc' ? lookUpCompiler() : lookUp(name)));
  return tool;
}

/** The tools that RXCUDA_EXPECT_TOOLS says this machine has (`all`: every one). */
export function expectedTools(): ReadonlySet<string> {
  const listed = (process.env.RXCUDA_EXPECT_TOOLS ?? '').split(',').map((t) => t.trim()).filter(Boolean);
  return new Set(listed.includes('all') ? Object.keys(LOOKUPS).concat('nvcc') : listed);
}

/**
 * Whether tests that need `name` skip here, and the words their title gets: `(skipped: …)` where
 * the tool is missing and not expected; where it is expected, the tests run and fail.
 */
export function toolSkip(name: ToolName): { readonly skip: boolean; readonly note: string } {
  const tool = findTool(name);
  if (tool.path !== undefined || expectedTools().has(name)) return { skip: false, note: '' };
  return { skip: true, note: ` (skipped: ${tool.problem})` };
}

/** The path of `name`, or an error that says how to install it (for tests that run without it only where RXCUDA_EXPECT_TOOLS names it). */
export function toolPath(name: ToolName): string {
  const tool = findTool(name);
  if (tool.path === undefined) throw new Error(`${tool.problem} (RXCUDA_EXPECT_TOOLS says this machine has it)`);
  return tool.path;
}

/** `describe` for tests that need `tool`: skipped without it, unless RXCUDA_EXPECT_TOOLS names it; the skip says how to install it. */
export function describeWithTool(tool: ToolName, name: string, body: () => void): void;
export function describeWithTool(tool: ToolName, name: string, options: TestOptions, body: () => void): void;
export function describeWithTool(tool: ToolName, name: string, ...rest: [() => void] | [TestOptions, () => void]): void {
  const { skip, note } = toolSkip(tool);
  const [options, body] = rest.length === 1 ? [{}, rest[0]] : rest;
  describe.skipIf(skip)(`${name}${note}`, options, body);
}
