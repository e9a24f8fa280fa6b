// A failed load of the native addon is one error that says what to do in the user's situation:
// a clone without a build, an installed package without a fitting addon, a bad RXCUDA_ADDON.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const target = `${process.platform}-${process.arch}, Node-API 8`;

const made: string[] = [];
afterAll(() => made.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

/** A copy of the built package (no build/, no prebuilds/) in a new temporary folder, at `path` in it. */
function builtCopy(prefix: string, path: string): string {
  const temporary = mkdtempSync(join(tmpdir(), prefix));
  made.push(temporary);
  const folder = join(temporary, path);
  mkdirSync(folder, { recursive: true });
  for (const file of ['package.json', 'binding-options.cjs', 'dist/src']) cpSync(join(root, file), join(folder, file), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(folder, 'node_modules'));
  return folder;
}

/** The message of the error that importing rxcuda from `folder` throws (empty if it loads). */
function importError(folder: string, env: NodeJS.ProcessEnv = {}): string {
  const entry = JSON.stringify(new URL(`file://${join(folder, 'dist/src/index.js')}`).href);
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${entry}).catch((e) => console.log(e.message))`], {
    encoding: 'utf8',
    env: { ...process.env, RXCUDA_ADDON: '', ...env },
  });
  return run.stdout;
}

describe('loading the native addon', () => {
  it('tells a clone without a build to run `npm run build:native`', () => {
    const clone = builtCopy('rxcuda-clone-', 'rxcuda');
    const message = importError(clone);
    expect(message.startsWith(`The rxcuda native addon could not be loaded. Build it with \`npm run build:native\` (${target};`)).toBe(true);
    expect(message).toContain(join(clone, 'build', 'Release', 'rxcuda.node'));
  });

  it('tells an installed package without a fitting addon to reinstall, and why none was there', () => {
    const installed = builtCopy('rxcuda-app-', join('node_modules', 'rxcuda'));
    const message = importError(installed);
    expect(message.startsWith(`The rxcuda native addon could not be loaded. This installed rxcuda has no prebuilt addon that fits (${target})`)).toBe(true);
    expect(message).toContain('`npm rebuild rxcuda`');
    expect(message).toContain('`npm install-scripts approve rxcuda`'); // npm 11 skips what its allowScripts lacks
    expect(message).toContain('docs/troubleshooting.md');
    expect(message).toContain(join(installed, 'prebuilds', `rxcuda-${process.platform}-${process.arch}`, 'node-napi-v8.node'));
  });

  it('names RXCUDA_ADDON when the build it names cannot be loaded', () => {
    const message = importError(root, { RXCUDA_ADDON: '/nonexistent/rxcuda.node' });
    expect(message).toMatch(/^The rxcuda native addon could not be loaded\. Unset RXCUDA_ADDON or point it at a built rxcuda\.node\.\nRXCUDA_ADDON=\/nonexistent\/rxcuda\.node: Cannot find module/);
  });
});
