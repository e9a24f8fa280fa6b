// An environment that ends with work still queued: a worker thread terminated while its host
// stream has commands pending must neither crash the process nor call into the dead environment.
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { helpers } from '../support/helpers.js';

const entry = new URL('../../dist/src/index.js', import.meta.url).href;

describe('the completion queue at teardown', () => {
  it('survives a worker terminated with completions pending, and stays usable in others', async () => {
    for (let round = 0; round < 3; round++) {
      const worker = new Worker(
        `import(${JSON.stringify(entry)}).then(async ({ Device }) => {
           const device = Device.host();
           const stream = device.createStream();
           const flag = device.allocHost('u32', 1);
           flag.data[0] = 0;
           // The stream's thread waits for a word nobody will write: everything behind it stays pending.
           stream.launchHostFunction(${helpers.waitForWord}n, flag);
           for (let i = 0; i < 100; i++) stream.onDone(() => {});
           stream.synchronized({ spin: 60_000_000 }); // a watcher thread busy for a minute
           const a = stream.alloc('f32', 1024);
           stream.fill(a, 1);
           require('node:worker_threads').parentPort.postMessage('pending');
         })`,
        { eval: true },
      );
      await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      expect(await worker.terminate()).toBe(1);
    }
    // The main thread's own environment is untouched.
    const { Device } = await import('../../src/index.js');
    const s = Device.host().createStream();
    let ran = false;
    s.hostLaunch(() => void (ran = true));
    await s.synchronized();
    expect(ran).toBe(true);
    s.close();
  });
});
