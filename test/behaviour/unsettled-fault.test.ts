// A device that breaks while steps are unsettled (issue 27's hang): every pending wait, onDone,
// completion point and event completion of the broken device settles with the fault within a
// bound (100 ms on the host device, 5 s on a GPU), whatever holds the queues; queued work behind
// them is dropped, and the step itself finishes on its own. Each case runs in a child process
// (fixtures/unsettled-fault.mjs, over the built package: `npx tsc` first), as a GPU's context
// stays broken for the process: a trap kernel there, a CPU kernel's sticky CudaError here.
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { describeBackends } from '../support/backends.js';

const fixture = new URL('./fixtures/unsettled-fault.mjs', import.meta.url).pathname;
const cwd = new URL('../..', import.meta.url).pathname;

function run(name: string, backend: string): Record<string, unknown> {
  const child = spawnSync(process.execPath, ['--expose-gc', fixture, name, backend], { cwd, encoding: 'utf8', timeout: 60_000 });
  expect({ status: child.status, signal: child.signal }).toEqual({ status: 0, signal: null });
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

describeBackends('a device broken while steps are unsettled', (_device, backend) => {
  const bound = backend === 'host' ? 100 : 5000;

  it('settles every wait queued behind a step on another stream with the fault, within the bound', () => {
    const out = run('other-stream', backend) as { settled: Record<string, { code?: number; ms?: number; resolved?: number }>; [key: string]: unknown };
    // The host device's fault is the CPU kernel's 700; a trap is the GPU's own sticky code.
    if (backend === 'host') expect(out.poisoned).toBe(700);
    for (const key of ['synchronized', 'spinning', 'completed', 'onDone']) {
      expect(out.settled[key]?.code, key).toBe(out.poisoned);
      expect(out.settled[key]?.ms, key).toBeLessThanOrEqual(bound);
    }
    expect(out.settled.flushed!.resolved).toBeLessThanOrEqual(bound);
    // The step was still running when the waits settled, finished on its own later, and the
    // kernel queued behind it never ran.
    expect([out.stepFinishedBefore, out.stepFinished, out.stored]).toEqual([false, true, 0]);
  });

  it('settles the wait of a stream closed while its queue held it', () => {
    const out = run('closed-stream', backend) as { settled: { synchronized: { code: number; ms: number } } };
    expect(out.settled.synchronized.code).toBeGreaterThan(0);
    expect(out.settled.synchronized.ms).toBeLessThanOrEqual(bound);
  });

  it('errors a pipeline whose value waits behind a step that never settles', () => {
    const out = run('pipeline', backend) as { pipeline: { type: string; code: number; ms: number } };
    expect(out.pipeline.type).toBe('CudaError');
    expect(out.pipeline.code).toBeGreaterThan(0);
    expect(out.pipeline.ms).toBeLessThanOrEqual(bound);
  });

  it('errors it too when nothing but rxcuda holds the pipeline, after a garbage collection', () => {
    const out = run('pipeline-unheld', backend) as { pipeline: { type: string; code: number; ms: number } };
    expect(out.pipeline.type).toBe('CudaError');
    expect(out.pipeline.code).toBeGreaterThan(0);
    expect(out.pipeline.ms).toBeLessThanOrEqual(bound);
  });

  it.skipIf(backend !== 'host')('lets another device waiting for an event of the broken one go on', () => {
    const out = run('other-device', backend) as { settled: { other: { resolved: number } }; stored: number; otherPoisoned: unknown };
    expect(out.settled.other.resolved).toBeLessThanOrEqual(bound);
    expect([out.stored, out.otherPoisoned]).toEqual([5, null]);
  });
});
