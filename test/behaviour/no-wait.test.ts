// The main thread never waits for device work it did not ask to wait for. Driver calls that
// synchronize with the whole device (freeing pinned memory, unloading a module) would otherwise
// deadlock as soon as a stream is held by a host step, which needs the main thread to run.
import { expect, it } from 'vitest';
import { HostStepsPendingError } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';

const NOTHING = 'extern "C" __global__ void nothing() {}\n';
const QUICK_MS = 250; // far below the 3 s the busy stream stays busy

describeBackends('main-thread calls while another stream is busy', (getDevice, backend) => {
  it('return at once: pinned memory, modules, streams, events and device memory', async () => {
    const device = getDevice();
    const { latch, module } = await testKernels(device);
    const spare = await device.compile(NOTHING + '// spare\n', { cache: false }); // a module to unload
    const busy = device.createStream({ nonBlocking: true });
    const flag = device.allocHost('u32', 1);
    const out = device.allocHost('u32', 1);
    flag.data[0] = 0;
    out.data[0] = 0;
    busy.launch(latch, { grid: 1, block: 1 }, [flag, out, 7, 3_000_000_000n]); // gives up after 3 s
    // Held behind the latch: a step the main thread must run before the stream can go on.
    let stepRan = false;
    busy.hostLaunch(() => void (stepRan = true));

    const took: Record<string, number> = {};
    const time = (name: string, fn: () => void) => {
      const start = performance.now();
      fn();
      took[name] = performance.now() - start;
    };
    const idle = device.createStream();
    time('allocHost', () => device.allocHost('f32', 1 << 20).close());
    time('allocHost after a free', () => {
      const used = device.allocHost('u8', 4096);
      idle.copy(used, used);
      used.close();
    });
    await idle.synchronized(); // the free behind the idle stream's copy is now due
    time('allocHost while frees are due', () => void device.allocHost('u8', 64));
    time('stream alloc and free', () => idle.alloc('f64', 1 << 16).close());
    time('createStream and close', () => device.createStream().close());
    time('createEvent and close', () => device.createEvent().close());
    time('module close', () => spare.close());
    await idle.synchronized();
    // A load would wait for the held stream: refused, or (compile) put off until the step ran.
    expect(() => device.loadModule('.version 8.0\n.target sm_90\n.address_size 64\n')).toThrow(HostStepsPendingError);
    let loaded = false;
    let stepHadRun = false;
    const loading = device.compile(NOTHING + '// later\n', { cache: false }).then((m) => ((loaded = true), (stepHadRun = stepRan), m));
    await new Promise((r) => setTimeout(r, 100));
    expect(loaded).toBe(backend === 'host'); // the host device loads nothing

    expect(busy.query()).toBe(false); // the latch still runs: nothing above waited for it
    expect(stepRan).toBe(false);
    for (const [name, ms] of Object.entries(took)) expect({ name, ms: ms < QUICK_MS }).toEqual({ name, ms: true });
    flag.data[0] = 1;
    await busy.synchronized();
    expect(out.data[0]).toBe(7);
    expect(stepRan).toBe(true);
    (await loading).close();
    expect(loaded).toBe(true);
    expect(stepHadRun).toBe(backend === 'cuda'); // the load waited for the held step to be released
    module.close();
    idle.close();
    busy.close();
  });
});
