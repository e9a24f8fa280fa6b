import { afterAll, beforeAll, expect, it } from 'vitest';
import { CudaError, Device, type Kernel, type Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';

describeBackends('Event', (getDevice) => {
  let device: Device;
  let a: Stream;
  let b: Stream;
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  let latch: Kernel<readonly ['ptr', 'ptr', 'u32', 'u64']>;
  beforeAll(async () => {
    device = getDevice();
    a = device.createStream({ nonBlocking: true });
    b = device.createStream({ nonBlocking: true });
    kernels = await testKernels(device);
    latch = kernels.latch;
  });
  afterAll(() => {
    a.close();
    b.close();
  });

  it('orders work across streams: the waiting stream sees the latched stream’s write', async () => {
    const copy = kernels.copy;
    const flag = device.allocHost('u32', 1);
    flag.data[0] = 0;
    const value = a.alloc('u32', 1);
    a.fill(value, 0);
    a.launch(latch, { grid: 1, block: 1 }, [flag, value, 42, 10_000_000_000n]);
    const written = a.record();
    b.wait(written);
    const seen = b.alloc('u32', 1);
    b.launch(copy, { grid: 1, block: 1 }, [value, seen]);
    const host = device.allocHost('u32', 1);
    b.copy(host, seen);
    const done = b.record();
    await new Promise((r) => setTimeout(r, 50));
    // a is held by the latch, so b is held by the event.
    expect(written.query()).toBe(false);
    expect(b.query()).toBe(false);
    flag.data[0] = 1;
    await done.completed();
    expect(host.data[0]).toBe(42);
    expect(written.query()).toBe(true);
  });

  it('measures elapsed time between timed events', async () => {
    const spin = kernels.spin;
    const start = a.record({ timing: true });
    a.launch(spin, { grid: 1, block: 1 }, [20_000_000n]);
    const end = a.record({ timing: true });
    await end.completed();
    const ms = end.elapsedSince(start);
    expect(ms).toBeGreaterThanOrEqual(19);
    expect(ms).toBeLessThan(500);
  });

  it('resolves completed() at the event even while later work on its stream runs', async () => {
    const flag = device.allocHost('u32', 1);
    flag.data[0] = 0;
    const sink = a.alloc('u32', 1);
    const before = a.record();
    a.launch(latch, { grid: 1, block: 1 }, [flag, sink, 1, 10_000_000_000n]);
    await before.completed();
    expect(a.query()).toBe(false);
    flag.data[0] = 1;
    await a.synchronized();
  });

  it('refuses timing of untimed or unfinished events', async () => {
    const flag = device.allocHost('u32', 1);
    flag.data[0] = 0;
    const sink = a.alloc('u32', 1);
    const untimed = a.record();
    const start = a.record({ timing: true });
    a.launch(latch, { grid: 1, block: 1 }, [flag, sink, 1, 10_000_000_000n]);
    const end = a.record({ timing: true });
    expect(() => end.elapsedSince(untimed)).toThrow(new TypeError('Expected `start` to be an event recorded with { timing: true }, got an untimed Event'));
    let error: unknown;
    try {
      end.elapsedSince(start);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CudaError);
    expect((error as CudaError).name).toBe('CUDA_ERROR_NOT_READY');
    flag.data[0] = 1;
    await end.completed();
    expect(end.elapsedSince(start)).toBeGreaterThanOrEqual(0);
    expect(() => device.createEvent().query()).toThrow(/recorded Event/);
    const closed = a.record();
    closed.close();
    closed.close();
    expect(() => b.wait(closed)).toThrow(TypeError);
  });
});
