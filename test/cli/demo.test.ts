// `rxcuda demo` as a user runs it: a summary written for people, and, when asked, a Chrome trace
// that trace viewers can name the rows of.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromeTraceProblems } from '../support/chrome-trace.js';
import { type CliRun, rxcuda } from '../support/cli.js';

describe('rxcuda demo', () => {
  let folder: string;
  let run: CliRun;
  let traced: CliRun;
  let pageable: CliRun;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'rxcuda-demo-'));
    for (const sub of ['plain', 'traced']) mkdirSync(join(folder, sub));
    run = rxcuda(['demo', '--frames', '12', '--pixels', '4096', '--lanes', '2'], join(folder, 'plain'));
    traced = rxcuda(['demo', '--frames', '12', '--pixels', '4096', '--lanes', '2', '--trace'], join(folder, 'traced'));
    pageable = rxcuda(['demo', '--frames', '6', '--pixels', String(1 << 17), '--lanes', '2', '--road', 'pageable', '--trace', join(folder, 'pageable.json')], folder);
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('exits 0 and draws no progress bar where stderr is not a terminal', () => {
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
  });

  it('writes no file unasked', () => {
    expect(readdirSync(join(folder, 'plain'))).toEqual([]);
    expect(run.stdout).not.toMatch(/^trace:/m);
  });

  it('writes rxcuda-demo-trace.json into the working folder for --trace without a path, and says where', () => {
    expect(traced.status).toBe(0);
    expect(readdirSync(join(folder, 'traced'))).toEqual(['rxcuda-demo-trace.json']);
    expect(traced.stdout).toContain(`\ntrace: ${join(folder, 'traced', 'rxcuda-demo-trace.json')} (open in chrome://tracing or ui.perfetto.dev)\n`);
  });

  it('writes the trace where --trace says, and says where', () => {
    expect(existsSync(join(folder, 'pageable.json'))).toBe(true);
    expect(pageable.stdout).toContain(`\ntrace: ${join(folder, 'pageable.json')} (`);
  });

  it('writes sizes, the device and stage names for people', () => {
    expect(run.stdout).toMatch(/^rxcuda demo on .+: 12 frames of 16 KiB, 2 lanes$/m);
    expect(run.stdout).not.toContain('((');
    expect(run.stdout).not.toContain(') (');
    expect(run.stdout).toMatch(/^12 frames in [\d.]+ s: [\d.]+ frames\/s, [\d.]+ (bytes|KiB|MiB|GiB)\/s through the device$/m);
    const stages = [...run.stdout.matchAll(/^ {2}(\S.*?) +[\d.]+ ms × 12(?:, [\d.]+ (?:bytes|KiB|MiB|GiB|TiB)\/s)?$/gm)].map((m) => m[1]);
    expect(stages.sort()).toEqual(['brighten', 'download frame [lent]', 'host step', 'invert', 'upload frame [pinned]']);
    expect(run.stdout).toMatch(/^road: pinned frames filled in place/m);
    expect(run.stdout).toMatch(/^ {2}upload frame \[pinned\] +[\d.]+ ms × 12, [\d.]+ (?:bytes|KiB|MiB|GiB|TiB)\/s$/m);
  });

  it('shows the pageable road when asked, with the copies off the main thread for large frames', () => {
    expect(pageable.status).toBe(0);
    expect(pageable.stdout).toMatch(/^road: plain arrays/m);
    const stages = [...pageable.stdout.matchAll(/^ {2}(\S.*?) +[\d.]+ ms × 6(?:, .*)?$/gm)].map((m) => m[1]);
    expect(stages.sort()).toEqual(['brighten', 'download frame [new array]', 'host copy frame [workers]', 'host stage frame [workers]', 'host step', 'invert', 'upload frame [staged]']);
  });

  it('puts no two overlapping spans on one row of the pageable road\'s trace, naming the rows that needs', () => {
    const trace = JSON.parse(readFileSync(join(folder, 'pageable.json'), 'utf8')) as { traceEvents: { ph: string; name: string; tid: number; ts?: number; dur?: number; args?: { name?: string } }[] };
    expect(chromeTraceProblems(trace)).toEqual([]);
    const rows = new Map<number, { ts: number; end: number; name: string }[]>();
    for (const e of trace.traceEvents.filter((e) => e.ph === 'X')) (rows.get(e.tid) ?? rows.set(e.tid, []).get(e.tid)!).push({ ts: e.ts!, end: e.ts! + e.dur!, name: e.name });
    const overlaps: string[] = [];
    for (const spans of rows.values()) {
      spans.sort((a, b) => a.ts - b.ts);
      for (let i = 1; i < spans.length; i++) if (spans[i]!.ts < spans[i - 1]!.end - 0.001) overlaps.push(`${spans[i - 1]!.name} / ${spans[i]!.name}`);
    }
    expect(overlaps).toEqual([]);
    // Frames staged at once on a lane: their `stage frame [workers]` spans needed a second row.
    const names = trace.traceEvents.filter((e) => e.name === 'thread_name').map((e) => e.args?.name);
    expect(names).toContain('lane 0 host steps (2)');
  });

  it('writes a trace with numeric ids, named by metadata events', () => {
    const trace = JSON.parse(readFileSync(join(folder, 'traced', 'rxcuda-demo-trace.json'), 'utf8')) as { traceEvents: { ph: string; name: string; tid: number; args?: { name?: string } }[] };
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
