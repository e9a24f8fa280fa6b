// The command line refuses what it cannot use before anything runs: one line on stderr, exit
// code 2, no stack trace.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasStackTrace, rxcuda } from '../support/cli.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('rxcuda --version', () => {
  it("prints the package's version and exits 0", () => {
    for (const flag of ['--version', '-V']) {
      const run = rxcuda([flag]);
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(`${pkg.version}\n`);
    }
  });
});

describe('rxcuda demo options', () => {
  const folder = mkdtempSync(join(tmpdir(), 'rxcuda-cli-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const bad = [
    ['--frames', 'abc', 'an integer from 1 to 100000'],
    ['--frames', '-3', 'an integer from 1 to 100000'],
    ['--frames', '0', 'an integer from 1 to 100000'],
    ['--frames', '1.5', 'an integer from 1 to 100000'],
    ['--frames', '', 'an integer from 1 to 100000'],
    ['--lanes', '0', 'an integer from 1 to 64'],
    ['--lanes', '65', 'an integer from 1 to 64'],
    ['--pixels', '0', 'an integer from 1 to 67108864'],
    ['--pixels', '1e3', 'an integer from 1 to 67108864'],
    ['--pixels', '0x10', 'an integer from 1 to 67108864'],
  ] as const;

  it.each(bad)('refuses %s %j in one line with exit code 2', (option, value, expected) => {
    const run = rxcuda(['demo', option, value]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`error: option '${option} <n>' argument '${value}' is invalid. Expected ${expected}.\n`);
  });

  it('refuses a --trace path in a folder that does not exist, before the run', () => {
    const missing = join(folder, 'no', 'trace.json');
    const run = rxcuda(['demo', '--trace', missing]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: option '--trace \[path\]' cannot be written: its folder .+ does not exist\.\n$/);
  });

  it('refuses a --trace path that is a folder, before the run', () => {
    const run = rxcuda(['demo', '--trace', folder]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`error: option '--trace [path]' cannot be written: ${folder} is a folder.\n`);
  });

  it('refuses a --report path in a folder that does not exist, before the run', () => {
    const run = rxcuda(['demo', '--report', join(folder, 'no', 'report.html')]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: option '--report <path>' cannot be written: its folder .+ does not exist\.\n$/);
  });

  it('refuses an unknown option or command with exit code 2', () => {
    for (const args of [['demo', '--bogus'], ['bogus'], ['demo', '--frames']]) {
      const run = rxcuda(args);
      expect(run.status).toBe(2);
      expect(run.stderr.trim().split('\n')[0]).toMatch(/^error: /);
      expect(hasStackTrace(run.stderr)).toBe(false);
    }
  });
});
