// `rxcuda demo` as a user runs it: a summary written for people, and a Chrome trace in the
// working folder that trace viewers can name the rows of.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromeTraceProblems } from '../support/chrome-trace.js';
import { type CliRun, rxcuda } from '../support/cli.js';

describe('rxcuda demo', () => {
  let folder: string;
  let run: CliRun;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'rxcuda-demo-'));
    run = rxcuda(['demo', '--frames', '12', '--pixels', '4096', '--lanes', '2'], folder);
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('exits 0 and draws no progress bar where stderr is not a terminal', () => {
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
  });

  it('writes rxcuda-demo-trace.json into the working folder', () => {
    expect(existsSync(join(folder, 'rxcuda-demo-trace.json'))).toBe(true);
    expect(run.stdout).toContain('trace: rxcuda-demo-trace.json');
  });

  it('writes sizes, the device and stage names for people', () => {
    expect(run.stdout).toMatch(/^rxcuda demo on .+: 12 frames of 16 KiB, 2 lanes$/m);
    expect(run.stdout).not.toContain('((');
    expect(run.stdout).not.toContain(') (');
    expect(run.stdout).toMatch(/^12 frames in [\d.]+ s: [\d.]+ frames\/s, [\d.]+ (bytes|KiB|MiB|GiB)\/s through the device$/m);
    const stages = [...run.stdout.matchAll(/^ {2}(\S.*?) +[\d.]+ ms × 12$/gm)].map((m) => m[1]);
    expect(stages.sort()).toEqual(['brighten', 'download frame', 'host step', 'invert', 'upload frame']);
  });

  it('writes a trace with numeric ids, named by metadata events', () => {
    const trace = JSON.parse(readFileSync(join(folder, 'rxcuda-demo-trace.json'), 'utf8')) as { traceEvents: { ph: string; name: string; tid: number; args?: { name?: string } }[] };
    expect(chromeTraceProblems(trace)).toEqual([]);
    expect(trace.traceEvents.filter((e) => e.ph === 'X')).toHaveLength(12 * 5);
    const threads = trace.traceEvents.filter((e) => e.name === 'thread_name').map((e) => [e.tid, e.args?.name]);
    expect(threads).toEqual([
      [1, 'lane 0 device work'],
      [2, 'lane 0 host steps'],
      [3, 'lane 1 device work'],
      [4, 'lane 1 host steps'],
    ]);
    expect(trace.traceEvents.find((e) => e.name === 'process_name')?.args?.name).toBe('rxcuda pipeline');
  });
});
