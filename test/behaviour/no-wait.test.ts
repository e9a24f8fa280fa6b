// The main thread never waits for device work it did not ask to wait for. Driver calls that
// synchronize with the whole device (loading or unloading a module, freeing pinned memory) run on
// worker threads; held host steps make nothing wait on the device.
import { expect, it } from 'vitest';
import type { Device, Module, Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';
import { collectUntil } from '../support/gc.js';

/**
 * Allocates a 4000-byte pinned array, fills it on `stream` (a use of it there) and keeps no reference to
 * it; returns the bytes of free cached blocks once it took its own.
 */
function useAndDrop(device: Device, stream: Stream): number {
  const array = device.allocHost('f32', 1000);
  const cached = device.engine.pinnedCache.freeBytes;
  stream.fill(array, 0);
  return cached;
}

const NOTHING = 'extern "C" __global__ void nothing() {}\n';
// Well below the 3 s the busy stream stays busy, so that a call that waited for it fails, and
// above what a driver call takes on a machine loaded by the whole suite (a cold GPU machine gave
// 250 ms to a first pooled allocation while other test processes were creating contexts).
const QUICK_MS = 1000;

describeBackends('main-thread calls while another stream is busy', (getDevice, backend) => {
  it('return at once: pinned memory, modules, streams, events and device memory', async () => {
    const device = getDevice();
    const { latch } = await testKernels(device);
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
      idle.fill(used, 0);
      used.close();
    });
    await idle.synchronized(); // the free behind the idle stream's copy is now due
    time('allocHost while frees are due', () => void device.allocHost('u8', 64));
    time('stream alloc and free', () => idle.alloc('f64', 1 << 16).close());
    time('createStream and close', () => device.createStream().close());
    time('createEvent and close', () => device.createEvent().close());
    time('module close', () => spare.close());
    const loads: Promise<Module>[] = [];
    if (backend === 'cuda') time('loadModule', () => void loads.push(device.loadModule(`.version 8.0\n.target ${device.arch}\n.address_size 64\n`)));
    time('compile', () => void loads.push(device.compile(NOTHING + '// later\n', { cache: false })));
    await idle.synchronized();

    expect(busy.query()).toBe(false); // the latch still runs: nothing above waited for it
    expect(stepRan).toBe(false);
    for (const [name, ms] of Object.entries(took)) expect({ name, ms: ms < QUICK_MS }).toEqual({ name, ms: true });
    flag.data[0] = 1;
    await busy.synchronized();
    expect(out.data[0]).toBe(7);
    expect(stepRan).toBe(true);
    for (const module of await Promise.all(loads)) expect(module.closed).toBe(false);
    idle.close();
    busy.close();
  });

  it('free small pinned arrays at once, closed or collected, while another stream runs with no step held', async () => {
    const device = getDevice();
    const { latch } = await testKernels(device);
    const busy = device.createStream({ nonBlocking: true });
    const idle = device.createStream();
    const flag = device.allocHost('u32', 1);
    const out = device.allocHost('u32', 1);
    flag.data[0] = 0;
    out.data[0] = 0;
    busy.launch(latch, { grid: 1, block: 1 }, [flag, out, 7, 3_000_000_000n]); // gives up after 3 s
    const start = performance.now();
    const closed = device.allocHost('u32', 64);
    const cachedBefore = useAndDrop(device, idle); // an array left to the garbage collector
    closed.data.fill(9);
    const view = closed.data;
    idle.fill(closed, 9);
    closed.close();
    await idle.synchronized();
    // Both blocks back in the cache (256 and 4096 bytes): the frees ran, and would have waited for the latch.
    await collectUntil(() => device.engine.pinnedCache.freeBytes >= cachedBefore + 256 + 4096, 20);
    const waited = performance.now() - start;
    const reused = device.allocHost('u32', 64);
    expect(busy.query()).toBe(false); // the latch still runs
    expect(waited).toBeLessThan(QUICK_MS);
    expect(device.engine.pinnedCache.freeBytes).toBeGreaterThanOrEqual(cachedBefore + 4096); // 256 of it reused
    expect(view.length).toBe(0); // the closed array's views emptied
    expect([...reused.data].every((v) => v === 0)).toBe(true); // a reused block starts zeroed
    flag.data[0] = 1;
    await busy.synchronized();
    expect(out.data[0]).toBe(7);
    idle.close();
    busy.close();
  });
});
