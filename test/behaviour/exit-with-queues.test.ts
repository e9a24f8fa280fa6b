// Environments that end while their streams' queues are full: workers terminated from outside or
// calling process.exit() from their own callbacks, and a main thread calling process.exit(0). The
// device threads submit what they hold and end; nothing may crash, and every completion record
// must be given back. The rounds run in a child process (scripts/exit-with-queues-child.mjs, which
// scripts/exit-with-queues.mjs runs for longer), so that a crash is seen as a signal.
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { describeBackends } from '../support/backends.js';

const child = new URL('../../scripts/exit-with-queues-child.mjs', import.meta.url).pathname;

interface Report {
  rounds: number;
  workers: number;
  exits: Record<string, number>;
  before: { pending: number; records: number; roads: number };
  after: { pending: number; records: number; roads: number };
}

const runChild = (args: string[]) =>
  spawnSync(process.execPath, [child, ...args], { encoding: 'utf8', timeout: 120_000 });

describeBackends('process.exit() and worker termination with full queues', (_device, backend) => {
  it('survives 20 rounds of 8 workers with 8 full streams each, terminated or exiting from a callback, and gives every record back', () => {
    const run = runChild(['--mode', 'workers', '--rounds', '20', '--workers', '8', '--backend', backend]);
    expect(run.signal, `the process died: ${run.stderr.slice(0, 2000)}`).toBeNull();
    expect(run.status, run.stderr.slice(0, 2000)).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    // terminate() ends a worker with code 1; the workers that exit by themselves use 7.
    expect(report.exits).toEqual({ 1: 80, 7: 80 });
    expect(report.before.records).toBe(0);
    expect(report.after).toEqual(report.before);
  }, 150_000);

  it('exits with status 0 when the main thread calls process.exit(0) from a host step, its queues and its workers\' full', () => {
    const run = runChild(['--mode', 'main', '--workers', '8', '--backend', backend]);
    expect(run.signal, `the process died: ${run.stderr.slice(0, 2000)}`).toBeNull();
    expect(run.status, run.stderr.slice(0, 2000)).toBe(0);
    const report = JSON.parse(run.stdout) as { queued: number; ranBeforeExit: number };
    // It exited from the 10th host step, with most of its commands still queued.
    expect(report.ranBeforeExit).toBeGreaterThanOrEqual(10);
    expect(report.ranBeforeExit).toBeLessThan(report.queued);
  }, 150_000);
});
