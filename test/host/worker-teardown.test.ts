// Worker threads that end with completions in flight: terminated from outside, or calling
// process.exit() from one of their own host steps. The process must survive every round, and
// every completion record must be given back once the work the workers left behind has run.
// The rounds run in a child process, so that a crash is seen as one instead of ending the runner.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const core = new URL('../../dist/src/core/', import.meta.url).href;
const testAddon = new URL('../../build/Release/rxcuda_test.node', import.meta.url).pathname;

interface Report {
  rounds: number;
  exits: Record<string, number>;
  before: { pending: number; records: number; roads: number };
  after: { pending: number; records: number; roads: number };
}

// Each worker blocks one stream on a word the main thread owns, with `pending` notifications
// behind it, and keeps a second stream's host steps flowing through the completion queue, so that
// the road is busy when the environment goes.
const child = `
  import { Worker } from 'node:worker_threads';
  import { createRequire } from 'node:module';
  // A host function that holds its stream until a word is non-zero (test/native/helpers.cpp).
  const { waitForWord } = createRequire(import.meta.url)('${testAddon}');
  const { Device } = await import('${core}api/device.js');
  const { addon } = await import('${core}native/addon.js');
  const before = addon.completionCounts();
  const levels = [100, 1000, 10000];
  const exits = {};
  const worker = (flag, pending, exitInside) => new Worker(\`
    const { parentPort, workerData } = require('node:worker_threads');
    import('${core}api/device.js').then(({ Device }) => {
      const device = Device.host();
      const blocked = device.createStream();
      blocked.launchHostFunction(workerData.waitForWord, workerData.flag);
      for (let i = 0; i < workerData.pending; i++) blocked.onDone(() => {});
      const flowing = device.createStream();
      let ran = 0;
      for (let i = 0; i < workerData.pending; i++)
        flowing.hostLaunch(() => { if (++ran === 50 && workerData.exitInside) process.exit(7); });
      parentPort.postMessage('pending');
    });\`, { eval: true, execArgv: [], workerData: { flag: flag.ptr, waitForWord, pending, exitInside } });
  for (let round = 0; round < 20; round++) {
    const flag = Device.host().allocHost('u32', 1);
    const workers = Array.from({ length: 8 }, (_, i) => worker(flag, levels[(round + i) % 3], i % 4 === 3));
    const ended = workers.map((w) => new Promise((resolve, reject) => {
      w.once('exit', (code) => { exits[code] = (exits[code] ?? 0) + 1; resolve(); });
      w.once('error', reject);
    }));
    // Terminated as soon as their steps are in flight (or gone already, by process.exit).
    await Promise.all(workers.map((w) => new Promise((resolve) => { w.once('message', resolve); w.once('exit', resolve); })));
    await Promise.all(workers.map((w) => w.terminate()));
    await Promise.all(ended);
    // Lets the blocked streams go: what they still hold runs, and its records find no environment.
    flag.data[0] = 1;
  }
  let after = addon.completionCounts();
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    after = addon.completionCounts();
    if (after.records === before.records && after.roads === before.roads) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  console.log(JSON.stringify({ rounds: 20, exits, before, after }));
`;

describe('the completion queue when a worker ends', () => {
  it('survives 20 rounds of 8 workers terminated or exiting with 10^2 to 10^4 steps in flight, and gives every record back', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', child], { encoding: 'utf8', timeout: 150_000 });
    expect(run.signal, `the process died: ${run.stderr.slice(0, 2000)}`).toBeNull();
    expect(run.status, run.stderr.slice(0, 2000)).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    // terminate() ends a worker with code 1; the workers that exit themselves end with 7, or with 1
    // when terminate() came first.
    expect(Object.keys(report.exits).sort()).toEqual(expect.arrayContaining(['1']));
    expect(Object.values(report.exits).reduce((a, b) => a + b, 0)).toBe(160);
    expect(report.exits['7'] ?? 0).toBeGreaterThan(0);
    expect(report.before).toEqual({ pending: 0, records: 0, roads: 1 });
    expect(report.after).toEqual(report.before);
  });
});
