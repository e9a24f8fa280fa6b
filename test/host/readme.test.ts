// Every ```ts block of README.md is a user's module importing 'rxcuda': it is type-checked (with
// this project's strict options and those `tsc --init` turns on) and run with Node on the host
// device, and on the GPU too where there is one; what its `// prints: text` comments say must be in
// its output. The blocks run against dist/, which `npm test`'s pretest builds (as the examples do).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpu } from '../support/gpu.js';
import { codeBlocks, printed } from '../support/markdown.js';

// The blocks are type-checked and compiled by TypeScript, a development dependency: a machine that
// runs the suite from built files alone (a GPU machine given dist/) may lack it, and says so.
const ts = (await import('typescript').then((m) => m.default, () => undefined))!;
const noTypeScript = ts === undefined ? 'TypeScript is not installed here, and it compiles the blocks' : '';

const root = fileURLToPath(new URL('../..', import.meta.url));
const blocks = codeBlocks(readFileSync(join(root, 'README.md'), 'utf8'));
const tsBlocks = blocks.filter((b) => b.lang === 'ts');

// Inside the package (under dist/, which git ignores), so that `import 'rxcuda'` resolves to this
// package itself, as it would in a project that installed it.
if (!existsSync(join(root, 'dist', 'src', 'index.js'))) throw new Error('The README blocks run against dist/: run `npx tsc` first (`npm test` does)');
const dir = mkdtempSync(join(root, 'dist', 'readme-'));
const source = (line: number) => join(dir, `block-${line}.ts`);
const script = (line: number) => join(dir, `block-${line}.mjs`);
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

function run(line: number, options: { forceHost: boolean }) {
  const args = options.forceHost ? ['--import', forceHost, script(line)] : [script(line)];
  // The working directory is the scratch folder: files a block writes land there.
  return spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', timeout: 120_000 });
}

let errors: Map<string, string[]>;

beforeAll(() => {
  if (noTypeScript) return;
  writeFileSync(forceHost, "import { Device } from 'rxcuda';\nDevice.default = () => Device.host();\n");
  for (const block of tsBlocks) {
    writeFileSync(source(block.line), block.code);
    const js = ts.transpileModule(block.code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    writeFileSync(script(block.line), js.outputText);
  }
  errors = typeCheck(tsBlocks.map((b) => source(b.line)));
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(noTypeScript !== '')(`README.md${noTypeScript ? ` (skipped: ${noTypeScript})` : ''}`, () => {
  it('has TypeScript blocks, and no JavaScript or TypeScript block that escapes these checks', () => {
    expect(tsBlocks.length).toBeGreaterThanOrEqual(4);
    expect(blocks.filter((b) => /^(js|javascript|typescript|tsx?|mjs)$/.test(b.lang) && b.lang !== 'ts').map((b) => b.line)).toEqual([]);
  });

  for (const block of tsBlocks) {
    const name = `the block at line ${block.line} (${block.heading})`;

    it(`${name} type-checks in strict mode`, () => {
      expect(errors.get(source(block.line))).toEqual([]);
    });

    it(`${name} runs on the host device and prints what it says`, () => {
      const result = run(block.line, { forceHost: true });
      expect(result.stderr, result.stdout).toBe('');
      expect(result.status).toBe(0);
      for (const text of printed(block.code)) expect(result.stdout).toContain(text);
    });

    it.skipIf(!gpu.available)(`${name} runs on the default device${gpu.available ? ` (${gpu.description})` : ` (skipped: ${gpu.reason})`}`, () => {
      const result = run(block.line, { forceHost: false });
      expect(result.stderr, result.stdout).toBe('');
      expect(result.status).toBe(0);
      for (const text of printed(block.code)) expect(result.stdout).toContain(text);
    });
  }
});
