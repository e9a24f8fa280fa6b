// Every ```ts block of README.md and of the pages of docs/ (not the generated docs/reference/) is a
// user's module importing 'rxcuda': it is type-checked (with this project's strict options and
// those `tsc --init` turns on), compiled with exactly the consumer `tsconfig.json` the docs state,
// as a project that installed rxcuda would compile it, with TypeScript 5.9 and with TypeScript 7
// (tsgo, of @typescript/native-preview), and the output is run with Node (20, where the suite runs
// on it) on the host device, and on the GPU too where there is one; what its `// prints: text`
// comments say must be in its output. The blocks run against dist/, which `npm test`'s pretest
// builds (as the examples do).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpu } from '../support/gpu.js';
import { codeBlocks, printed, type CodeBlock } from '../support/markdown.js';
import { toolPath, toolSkip, type ToolName } from '../support/tools.js';

// The blocks are type-checked and compiled by TypeScript, a development dependency: a machine that
// runs the suite from built files alone (a GPU machine given dist/) may lack it, and says so.
const ts = (await import('typescript').then((m) => m.default, () => undefined))!;
const noTypeScript = ts === undefined ? 'TypeScript is not installed here, and it compiles the blocks' : '';

const root = fileURLToPath(new URL('../..', import.meta.url));
// TypeScript 7's compiler, a native program that its package's script starts: the release's
// (`typescript@7`, which CI installs apart, as its `tsc` would shadow 5.9's here) where
// RXCUDA_TSC7 names its bin/tsc, else the preview build among the development dependencies.
const tsgo = process.env.RXCUDA_TSC7 ?? join(root, 'node_modules', '@typescript', 'native-preview', 'bin', 'tsgo');
const noTypeScript7 = existsSync(tsgo) ? '' : `TypeScript 7 is not installed here (${tsgo})`;

/** The pages whose blocks are checked: the README and each page of docs/, whatever pages there are. */
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
/** A block and the page it is on; `key` names its files. */
type PageBlock = CodeBlock & { readonly page: string; readonly key: string };
const blocks: PageBlock[] = pages.flatMap((page) => codeBlocks(readFileSync(join(root, page), 'utf8'))
  .map((b) => ({ ...b, page, key: `${page.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-')}-${b.line}` })));
const tsBlocks = blocks.filter((b) => b.lang === 'ts');
/** The docs' consumer configuration: the JSON block with `compilerOptions`. */
const consumerConfig = blocks.find((b) => b.lang === 'json' && b.code.includes('"compilerOptions"'));

// A project of a user's, outside the package: its tsconfig.json is the README's, its package.json
// says ES module, and its node_modules has rxcuda (this package, built), rxjs, @types/node and the
// NATS client (for the rxcuda/jetstream block).
if (!existsSync(join(root, 'dist', 'src', 'index.js'))) throw new Error('The README blocks run against dist/: run `npx tsc` first (`npm test` does)');
const dir = mkdtempSync(join(tmpdir(), 'rxcuda-readme-'));
// The docs' tsconfig.json takes a project's sources from src/ (its `rootDir`).
const source = (key: string) => join(dir, 'src', `block-${key}.ts`);
/** Where the docs' configuration puts the compiled block (its `outDir`). */
let script = (key: string) => join(dir, `block-${key}.js`);
// Device.default() is the host device where there is no GPU; this makes it so where there is one.
const forceHost = join(dir, 'force-host.mjs');

/** Type-errors per block file, from one program over all of them. */
function typeCheck(files: string[]): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  })!;
  const program = ts.createProgram(files, {
    ...config.options,
    noEmit: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    moduleDetection: ts.ModuleDetectionKind.Force,
    noUncheckedSideEffectImports: true,
  });
  const errors = new Map<string, string[]>();
  for (const file of files) {
    const sourceFile = program.getSourceFile(file)!;
    const diagnostics = [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)];
    errors.set(file, diagnostics.map((d) => {
      const { line } = sourceFile.getLineAndCharacterOfPosition(d.start ?? 0);
      return `line ${line + 1} of the block: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    }));
  }
  return errors;
}

function run(key: string, options: { forceHost: boolean }) {
  const args = options.forceHost ? ['--import', forceHost, script(key)] : [script(key)];
  // The working directory is the scratch folder: files a block writes land there. A tool the block
  // starts by name is the one the suite found (support/tools.ts: NATS_SERVER, say, whatever its
  // file's name), through a folder of links named as the block names them, first on the PATH.
  const tools = toolsStarted(blocks.find((b) => b.key === key)!.code);
  const env = { ...process.env };
  if (tools.length > 0) {
    const links = join(dir, 'tools');
    mkdirSync(links, { recursive: true });
    for (const tool of tools) {
      const link = join(links, tool);
      rmSync(link, { force: true });
      symlinkSync(resolve(toolPath(tool)), link); // throws, saying how to install it, where it is expected and missing
    }
    env.PATH = [links, ...(process.env.PATH ? [process.env.PATH] : [])].join(delimiter);
  }
  return spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', timeout: 120_000, env });
}

/** The system tools (support/tools.ts) a block starts: `spawn('nats-server', …)`. */
function toolsStarted(code: string): ToolName[] {
  return [...code.matchAll(/spawn\('([a-z-]+)'/g)].map((m) => m[1]!).filter((name): name is ToolName => name === 'nats-server');
}

/** Whether a block's runs skip here, for a tool it starts that is missing, and the words their title gets. */
function blockToolSkip(code: string): { readonly skip: boolean; readonly note: string } {
  return toolsStarted(code).map(toolSkip).find((t) => t.skip) ?? { skip: false, note: '' };
}

/**
 * Compiles the blocks as the user's project would, with the README's tsconfig.json as it is:
 * the errors per block file, and the configuration's own.
 */
function compileAsConsumer(): { errors: Map<string, string[]>; configErrors: string[] } {
  const config = ts.getParsedCommandLineOfConfigFile(join(dir, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  })!;
  const flatten = (d: import('typescript').Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, '\n');
  const program = ts.createProgram(config.fileNames, config.options);
  const errors = new Map<string, string[]>();
  for (const file of config.fileNames) {
    const sourceFile = program.getSourceFile(file)!;
    errors.set(file, ts.getPreEmitDiagnostics(program, sourceFile).map((d) => `line ${sourceFile.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} of the block: ${flatten(d)}`));
  }
  const emitted = program.emit();
  const outDir = config.options.outDir ?? dir;
  script = (key) => join(outDir, `block-${key}.js`);
  return { errors, configErrors: [...config.errors, ...program.getGlobalDiagnostics(), ...emitted.diagnostics].map(flatten) };
}

/**
 * Compiles the blocks with TypeScript 7 and the docs' tsconfig.json (emitting nothing): the errors
 * per block file, and those of no block.
 */
function compileWithTypeScript7(): { errors: Map<string, string[]>; otherErrors: string[] } {
  writeFileSync(join(dir, 'tsconfig.ts7.json'), JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: true } }));
  const result = spawnSync(process.execPath, [tsgo, '-p', join(dir, 'tsconfig.ts7.json'), '--pretty', 'false'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  const errors = new Map<string, string[]>(tsBlocks.map((b) => [source(b.key), []]));
  const otherErrors: string[] = [];
  if (result.error) otherErrors.push(String(result.error));
  // tsgo prints `file(line,col): error TSnnnn: message`, each message's further lines indented.
  for (const text of `${result.stdout}${result.stderr}`.split(/\n(?=\S)/).filter((t) => t.trim() !== '')) {
    const match = /^(.+?)\((\d+),\d+\): (.*)$/s.exec(text.trim());
    const file = match && join(dir, match[1]!);
    if (file && errors.has(file)) errors.get(file)!.push(`line ${match[2]} of the block: ${match[3]}`);
    else otherErrors.push(text.trim());
  }
  return { errors, otherErrors };
}

let errors: Map<string, string[]>;
let consumer: { errors: Map<string, string[]>; configErrors: string[] };
let consumer7: { errors: Map<string, string[]>; otherErrors: string[] } | undefined;

beforeAll(() => {
  if (noTypeScript || !consumerConfig) return;
  writeFileSync(join(dir, 'tsconfig.json'), consumerConfig.code);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
  mkdirSync(join(dir, 'src'));
  mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
  symlinkSync(root, join(dir, 'node_modules', 'rxcuda'), 'dir');
  symlinkSync(join(root, 'node_modules', 'rxjs'), join(dir, 'node_modules', 'rxjs'), 'dir');
  symlinkSync(join(root, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'), 'dir');
  // The NATS client, which a user of rxcuda/jetstream installs beside it.
  symlinkSync(join(root, 'node_modules', '@nats-io'), join(dir, 'node_modules', '@nats-io'), 'dir');
  writeFileSync(forceHost, "import { Device } from 'rxcuda';\nDevice.default = () => Device.host();\n");
  for (const block of tsBlocks) writeFileSync(source(block.key), block.code);
  errors = typeCheck(tsBlocks.map((b) => source(b.key)));
  consumer = compileAsConsumer();
  if (!noTypeScript7) consumer7 = compileWithTypeScript7();
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(noTypeScript !== '')(`README.md and docs/*.md${noTypeScript ? ` (skipped: ${noTypeScript})` : ''}`, () => {
  it('has TypeScript blocks, and no JavaScript or TypeScript block that escapes these checks', () => {
    expect(tsBlocks.length).toBeGreaterThanOrEqual(4);
    expect(blocks.filter((b) => /^(js|javascript|typescript|tsx?|mjs)$/.test(b.lang) && b.lang !== 'ts').map((b) => `${b.page}:${b.line}`)).toEqual([]);
  });

  it('states the tsconfig.json a project needs for its blocks on Node 20, with no error of its own', () => {
    expect(consumerConfig?.heading).toBe('TypeScript on Node 20');
    expect(consumer.configErrors).toEqual([]);
  });

  it.skipIf(noTypeScript7 !== '')(`compiles the blocks with TypeScript 7 and no error outside them${noTypeScript7 ? ` (skipped: ${noTypeScript7})` : ''}`, () => {
    expect(consumer7?.otherErrors).toEqual([]);
  });

  it('has a tsconfig.json whose output Node 20 can parse: `using` rewritten, not left as it is', () => {
    const usingBlocks = tsBlocks.filter((b) => /^\s*using /m.test(b.code));
    expect(usingBlocks.length).toBeGreaterThan(0);
    for (const block of usingBlocks) expect(readFileSync(script(block.key), 'utf8')).not.toMatch(/^\s*using /m);
  });

  for (const block of tsBlocks) {
    const name = `${block.page}: the block at line ${block.line} (${block.heading})`;

    it(`${name} type-checks in strict mode`, () => {
      expect(errors.get(source(block.key))).toEqual([]);
    });

    it(`${name} compiles with the docs' tsconfig.json`, () => {
      expect(consumer.errors.get(source(block.key))).toEqual([]);
    });

    it.skipIf(noTypeScript7 !== '')(`${name} compiles with TypeScript 7${noTypeScript7 ? ` (skipped: ${noTypeScript7})` : ''}`, () => {
      expect(consumer7?.errors.get(source(block.key))).toEqual([]);
    });

    const tools = blockToolSkip(block.code);

    it.skipIf(tools.skip)(`${name} runs on the host device and prints what it says${tools.note}`, () => {
      const result = run(block.key, { forceHost: true });
      expect(result.stderr, result.stdout).toBe('');
      expect(result.status).toBe(0);
      for (const text of printed(block.code)) expect(result.stdout).toContain(text);
    });

    it.skipIf(!gpu.available || tools.skip)(`${name} runs on the default device${gpu.available ? ` (${gpu.description})${tools.note}` : ` (skipped: ${gpu.reason})`}`, () => {
      const result = run(block.key, { forceHost: false });
      expect(result.stderr, result.stdout).toBe('');
      expect(result.status).toBe(0);
      for (const text of printed(block.code)) expect(result.stdout).toContain(text);
    });
  }
});
