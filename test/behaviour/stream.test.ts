import { afterEach, beforeAll, expect, it } from 'vitest';
import { Device, LaunchConfig, Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';

describeBackends('Stream', (getDevice, backend) => {
  let device: Device;
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  const open: Stream[] = [];
  beforeAll(async () => {
    device = getDevice();
    kernels = await testKernels(device);
  });
  afterEach(() => open.splice(0).forEach((s) => s.close()));
  const stream = (options?: Parameters<Device['createStream']>[0]) => {
    const s = device.createStream(options);
    open.push(s);
    return s;
  };

  it('exposes its handle, priority and flags', () => {
    const s = stream({ priority: -1, nonBlocking: true });
    expect(typeof s.handle).toBe('bigint');
    expect(s.handle).toBeGreaterThan(0n);
    expect(s.nonBlocking).toBe(true);
    expect(s.priority).toBeLessThanOrEqual(0);
    expect(stream().priority).toBe(0);
    expect(stream().nonBlocking).toBe(false);
  });

  it('is idle when empty, busy while a kernel runs, and resolves synchronized() when done', async () => {
    // The kernel runs until the test writes its flag, so "busy" does not hang on how long a kernel
    // takes while other work loads the device: the order is the test's own.
    const s = stream();
    const flag = device.allocHost('u32', 1);
    const out = device.allocHost('u32', 1);
    expect(s.query()).toBe(true);
    s.launch(kernels.latch, { grid: 1, block: 1 }, [flag, out, 7, 30_000_000_000n]);
    expect(s.query()).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(s.query()).toBe(false); // still held by the flag
    flag.data[0] = 1;
    await s.synchronized();
    expect(s.query()).toBe(true);
    expect(out.data[0]).toBe(7); // it saw the flag, not its 30 s timeout
  });

  it('closes idempotently and refuses work afterwards, with nothing enqueued', async () => {
    const s = stream();
    const counter = s.alloc('u32', 1);
    s.fill(counter, 0);
    s.launch(kernels.count, { grid: 1, block: 1 }, [counter]);
    const host = device.allocHost('u32', 1);
    s.copy(host, counter);
    await s.synchronized();
    s.close();
    s.close();
    expect(s.closed).toBe(true);
    expect(() => s.launch(kernels.count, { grid: 1, block: 1 }, [counter])).toThrow(new TypeError('Expected `stream` to be open, got a closed Stream'));
    expect(() => s.copy(host, counter)).toThrow(TypeError);
    expect(() => s.alloc('u32', 1)).toThrow(TypeError);
    expect(() => s.record()).toThrow(TypeError);
    expect(() => s.hostLaunch(() => {})).toThrow(TypeError);
    expect(host.data[0]).toBe(1);
  });

  it('takes plain launch options as they are at each launch, reused, repeated or changed in place', async () => {
    const s = stream();
    const counter = s.alloc('u32', 1);
    s.fill(counter, 0);
    const options: { grid: number | [number, number]; block: number } = { grid: 2, block: 3 };
    s.launch(kernels.count, options, [counter]); // 6 threads
    s.launch(kernels.count, { grid: 2, block: 3 }, [counter]); // the same, in a new object: 6
    options.grid = [2, 2];
    s.launch(kernels.count, options, [counter]); // 12
    const grid: [number, number] = [1, 1];
    const inPlace = { grid, block: 4 };
    s.launch(kernels.count, inPlace, [counter]); // 4
    grid[1] = 3;
    s.launch(kernels.count, inPlace, [counter]); // 12
    expect(() => s.launch(kernels.count, { grid: [1, 3], block: 0 }, [counter])).toThrow(RangeError);
    expect(() => s.launch(kernels.count, { grid: [1, 3, undefined as never], block: 4 }, [counter])).toThrow(TypeError);
    const host = device.allocHost('u32', 1);
    s.copy(host, counter);
    await s.synchronized();
    expect(host.data[0]).toBe(6 + 6 + 12 + 4 + 12);
  });

  it('closes through Symbol.dispose', () => {
    const s = device.createStream();
    s[Symbol.dispose]();
    expect(s.closed).toBe(true);
  });

  it.skipIf(backend === 'host')('wraps a foreign handle without taking ownership', async () => {
    const owner = stream();
    const wrapped = Stream.fromHandle(owner.handle, device);
    expect(wrapped.handle).toBe(owner.handle);
    const a = wrapped.alloc('u32', 4);
    wrapped.fill(a, 7);
    const host = device.allocHost('u32', 4);
    wrapped.copy(host, a);
    let seen: number[] = [];
    wrapped.hostLaunch(() => {
      seen = [...host.data];
    });
    await wrapped.synchronized();
    expect(seen).toEqual([7, 7, 7, 7]);
    wrapped.close();
    // The owner's stream still works: closing the wrapper did not destroy it.
    owner.fill(a, 9);
    owner.copy(host, a);
    await owner.synchronized();
    expect([...host.data]).toEqual([9, 9, 9, 9]);
    expect(() => Stream.fromHandle(0n, device)).toThrow(TypeError);
    expect(() => Stream.fromHandle(5 as never, device)).toThrow(TypeError);
  });

  it('rejects bad options', () => {
    expect(() => device.createStream({ priority: 0.5 })).toThrow(TypeError);
    expect(() => device.createStream({ nonBlocking: 1 as never })).toThrow(TypeError);
    expect(() => device.createStream('fast' as never)).toThrow(TypeError);
  });

  it('keeps several synchronized() waits in order of enqueue', async () => {
    const s = stream();
    const order: number[] = [];
    const config = new LaunchConfig({ grid: 1, block: 1 });
    const waits = [0, 1, 2].map((i) => {
      s.launch(kernels.spin, config, [2_000_000n]);
      return s.synchronized().then(() => order.push(i));
    });
    await Promise.all(waits);
    expect(order).toEqual([0, 1, 2]);
  });
});

describeBackends('Stream events', (getDevice) => {
  it('emits idle when the work enqueued so far has finished, and not while more is queued', async () => {
    const s = getDevice().createStream();
    let idle = 0;
    s.on('idle', () => idle++);
    const a = s.alloc('u32', 16);
    s.fill(a, 1);
    const first = s.synchronized();
    s.fill(a, 2); // enqueued after the first completion point: that one is not idle
    await first;
    expect(idle).toBe(0);
    await s.synchronized();
    expect(idle).toBe(1);
    s.close();
  });
});

describeBackends('Stream.synchronized({ spin })', (getDevice) => {
  it('resolves after the work before it, whether the watcher sees it or the callback does', async () => {
    const device = getDevice();
    const { spin, store } = await testKernels(device);
    const s = device.createStream();
    const slot = device.allocHost('u32', 1);
    for (let i = 0; i < 200; i++) {
      s.launch(store, { grid: 1, block: 1 }, [slot, i]);
      await s.synchronized({ spin: 1000 });
      expect(slot.data[0]).toBe(i);
    }
    // Longer than the watcher waits: the callback settles it.
    s.launch(spin, { grid: 1, block: 1 }, [20_000_000n]);
    s.launch(store, { grid: 1, block: 1 }, [slot, 7777]);
    await s.synchronized({ spin: 100 });
    expect(slot.data[0]).toBe(7777);
    expect(() => s.synchronized({ spin: -1 })).toThrow(RangeError);
    s.close();
    await expect(s.synchronized()).rejects.toThrow(TypeError);
  });

  it('falls back on a notification once the watcher gives up, or once the stream is closed', async () => {
    const device = getDevice();
    const { spin, store } = await testKernels(device);
    const settle = async (watchMicros: number, close: boolean) => {
      const s = device.createStream();
      const out = device.allocHost('u32', 1);
      out.data[0] = 0;
      s.launch(spin, { grid: 1, block: 1 }, [40_000_000n]); // 40 ms: far past the watch
      s.launch(store, { grid: 1, block: 1 }, [out, 5]);
      let idle = 0;
      s.on('idle', () => idle++);
      const start = performance.now();
      const done = s.synchronized({ spin: watchMicros });
      if (close) s.close();
      await done;
      const waited = performance.now() - start;
      s.close();
      return { out: out.data[0], idle, waitedForTheKernel: waited >= 35 };
    };
    // The watcher gives up after 100 µs: only the fallback can settle the wait.
    expect(await settle(100, false)).toEqual({ out: 5, idle: 1, waitedForTheKernel: true });
    // Closed while the watcher still watches (5 ms, so it gives up long before the kernel ends):
    // only the fallback enqueued at close can settle the wait.
    expect(await settle(5000, true)).toEqual({ out: 5, idle: 1, waitedForTheKernel: true });
  });
});
