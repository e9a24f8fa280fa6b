// Ctrl-C in `rxcuda demo`, typed into a real terminal (tmux: send-keys C-c, capture-pane): the
// demo stops taking frames, lets those in flight finish, prints the summary of what ran, writes the
// trace and the report, and exits with 130. Skipped without tmux, except where CI expects it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromeTraceProblems } from '../support/chrome-trace.js';
import { cliPath } from '../support/cli.js';
import { describeWithTool, findTool, toolPath } from '../support/tools.js';

const SOCKET = `rxcuda-test-${process.pid}`;
const tmux = (...args: string[]) => spawnSync(toolPath('tmux'), ['-L', SOCKET, ...args], { encoding: 'utf8' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pane's text (its history too), once `until` finds it there, within `ms`. */
async function screen(until: RegExp, ms: number): Promise<string> {
  const deadline = Date.now() + ms;
  let text = '';
  while (Date.now() < deadline) {
    text = tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', 'demo').stdout;
    if (until.test(text)) return text;
    await sleep(100);
  }
  throw new Error(`The terminal did not show ${until} within ${ms} ms; it shows:\n${text}`);
}

describeWithTool('tmux', 'rxcuda demo stopped by Ctrl-C in a terminal (tmux)', () => {
  let folder: string;
  let text: string;
  let frames: number;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'rxcuda-interrupt-'));
    const demo = [process.execPath, cliPath, 'demo', '--frames', '100000', '--pixels', '16384', '--lanes', '2', '--trace', 'trace.json', '--report', 'report.html'].map((a) => JSON.stringify(a)).join(' ');
    // The shell stays after the demo, so that the pane can still be read; it says how the demo ended.
    const started = tmux('new-session', '-d', '-s', 'demo', '-x', '200', '-y', '50', '-c', folder, `${demo}; echo "demo exited with $?"; sleep 120`);
    if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
    await screen(/ [1-9]\d{2,}\/100000 frames \| /, 30_000); // the bar, a hundred frames in
    tmux('send-keys', '-t', 'demo', 'C-c');
    text = await screen(/demo exited with \d+/, 60_000);
    frames = Number(/^interrupted after (\d+) of 100000 frames$/m.exec(text)?.[1]);
  }, 120_000);
  afterAll(() => {
    if (findTool('tmux').path) tmux('kill-server');
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('exits with 130', () => {
    expect(text).toMatch(/^demo exited with 130$/m);
  });

  it('says it stopped taking frames, and how many it ran', () => {
    expect(text).toMatch(/^interrupted: taking no more frames, finishing the \d+ in flight \(Ctrl-C again to quit at once\)$/m);
    expect(frames).toBeGreaterThanOrEqual(100);
    expect(frames).toBeLessThan(100_000);
  });

  it('prints the summary of the frames that ran, each stage once per frame', () => {
    expect(text).toMatch(new RegExp(`^${frames} frames in [\\d.]+ s: `, 'm'));
    const stages = [...text.matchAll(/^ {2}(\S.*?) +[\d.]+ ms × (\d+)/gm)].map((m) => [m[1], Number(m[2])]);
    expect(stages.map(([stage]) => stage).sort()).toEqual(['brighten', 'download frame [lent]', 'host step', 'invert', 'upload frame [pinned]']);
    expect(stages.every(([, count]) => count === frames)).toBe(true);
  });

  it('writes the trace of every frame that ran, whole', () => {
    const trace = JSON.parse(readFileSync(join(folder, 'trace.json'), 'utf8')) as { traceEvents: { ph: string; args?: { value?: number } }[] };
    expect(chromeTraceProblems(trace)).toEqual([]);
    const spans = trace.traceEvents.filter((e) => e.ph === 'X');
    expect(spans).toHaveLength(5 * frames);
    expect(new Set(spans.map((e) => e.args!.value)).size).toBe(frames);
    expect(text).toContain(`\ntrace: ${join(folder, 'trace.json')} (`);
  });

  it('writes the report, which says the run was interrupted', () => {
    expect(existsSync(join(folder, 'report.html'))).toBe(true);
    expect(readFileSync(join(folder, 'report.html'), 'utf8')).toContain(`${frames} of 100000 frames`);
    expect(text).toContain(`\nreport: ${join(folder, 'report.html')} (`);
  });
});
