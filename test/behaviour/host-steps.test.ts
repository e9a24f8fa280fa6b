import { beforeAll, expect, it, vi } from 'vitest';
import { CudaError, Device, STEP_FAILED_WARNING, type Kernel, type Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { streamsPerTest } from '../support/streams.js';
import { collectUntil, gc } from '../support/gc.js';
import { helpers } from '../support/helpers.js';
import { testKernels } from '../support/kernels.js';

type Store = Kernel<readonly ['ptr', 'u32']>;
type Copy = Kernel<readonly ['ptr', 'ptr']>;
type Latch = Kernel<readonly ['ptr', 'ptr', 'u32', 'u64']>;

describeBackends('Stream.hostLaunch', (getDevice, backend) => {
  let device: Device;
  let store: Store, copy: Copy, latch: Latch;
  const one = { grid: 1, block: 1 };
  beforeAll(async () => {
    device = getDevice();
    ({ store, copy, latch } = await testKernels(device));
  });
  const stream = streamsPerTest(() => device);
  /** Holds `s` until the returned function is called. */
  const hold = (s: Stream) => {
    const flag = device.allocHost('u32', 1);
    flag.data[0] = 0;
    s.launch(latch, one, [flag, s.alloc('u32', 1), 1, 10_000_000_000n]);
    return () => (flag.data[0] = 1);
  };

  for (const kind of ['sync', 'async'] as const) {
    it(`lets the next kernel see what a ${kind} step wrote, though it was enqueued before the step ran`, async () => {
      const s = stream();
      const shared = device.allocHost('u32', 1);
      const out = s.alloc('u32', 1);
      const result = device.allocHost('u32', 1);
      let seen = -1;
      s.launch(store, one, [shared, 5]);
      s.hostLaunch(
        kind === 'sync'
          ? () => {
              seen = shared.data[0]!;
              shared.data[0] = seen * 10;
            }
          : async () => {
              seen = shared.data[0]!;
              await new Promise((r) => setTimeout(r, 30));
              shared.data[0] = seen * 10;
            },
      );
      s.launch(copy, one, [shared, out]);
      s.copy(result, out);
      await s.synchronized();
      expect(seen).toBe(5);
      expect(result.data[0]).toBe(50);
    });
  }

  it('keeps the order and data of steps on two streams apart', async () => {
    const logs = new Map<Stream, [number, number][]>();
    const work = [stream(), stream()].map(async (s, lane) => {
      const slot = device.allocHost('u32', 1);
      const log: [number, number][] = [];
      logs.set(s, log);
      for (let i = 0; i < 20; i++) {
        s.launch(store, one, [slot, lane * 1000 + i]);
        s.hostLaunch((data) => void log.push([data![0]!, slot.data[0]!]), { userData: new Uint32Array([lane * 1000 + i]) });
      }
      await s.synchronized();
      return log;
    });
    const [a, b] = await Promise.all(work);
    expect(a).toEqual(Array.from({ length: 20 }, (_, i) => [i, i]));
    expect(b).toEqual(Array.from({ length: 20 }, (_, i) => [1000 + i, 1000 + i]));
  });

  it('copies userData at enqueue', async () => {
    const s = stream();
    const release = hold(s);
    const data = new Uint32Array([1, 2, 3]);
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, 2.5, true);
    let got: unknown[] = [];
    s.hostLaunch((copy) => void got.push(copy), { userData: data });
    s.hostLaunch((copy) => void got.push(copy), { userData: view });
    s.hostLaunch((copy) => void got.push(copy));
    data.fill(9);
    view.setFloat64(0, -1, true);
    release();
    await s.synchronized();
    expect(got[0]).toBeInstanceOf(Uint32Array);
    expect([...(got[0] as Uint32Array)]).toEqual([1, 2, 3]);
    expect((got[1] as DataView).getFloat64(0, true)).toBe(2.5);
    expect(got[2]).toBeUndefined();
  });

  it('keeps the callable alive until it ran, and lets it go after', async () => {
    const s = stream();
    const release = hold(s);
    let ran = false;
    let ref: WeakRef<() => void>;
    const collected = { value: false };
    const registry = new FinalizationRegistry(() => (collected.value = true));
    (() => {
      const fn = () => {
        ran = true;
      };
      ref = new WeakRef(fn);
      registry.register(fn, 'fn');
      s.hostLaunch(fn);
    })();
    for (let i = 0; i < 5; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(ref!.deref()).toBeDefined();
    expect(ran).toBe(false);
    release();
    await s.synchronized();
    expect(ran).toBe(true);
    expect(await collectUntil(() => collected.value)).toBe(true);
  });

  it('rejects non-functions and unreadable userData with nothing enqueued', async () => {
    const s = stream();
    const buffer = new ArrayBuffer(8);
    structuredClone(buffer, { transfer: [buffer] });
    expect(() => s.hostLaunch(5 as never)).toThrow(new TypeError('Expected `fn` to be a function, got 5'));
    expect(() => s.hostLaunch(() => {}, { userData: buffer })).toThrow(new TypeError('Expected `userData` to be bytes that can be read, got a detached buffer'));
    expect(() => s.hostLaunch(() => {}, { userData: 'text' as never })).toThrow(TypeError);
    expect(() => s.hostLaunch(() => {}, 'x' as never)).toThrow(TypeError);
    let calls = 0;
    s.onDone(() => calls++);
    await s.synchronized();
    expect(calls).toBe(1);
  });

  it('reports a step that throws or rejects, and the stream goes on', async () => {
    const s = stream();
    const errors: [unknown, unknown][] = [];
    s.on('error', (error, context) => errors.push([error, context]));
    const slot = device.allocHost('u32', 1);
    s.hostLaunch(function boom() {
      throw new Error('boom');
    });
    s.hostLaunch(async () => {
      throw new RangeError('later');
    });
    s.launch(store, one, [slot, 77]);
    await s.synchronized();
    expect(slot.data[0]).toBe(77);
    expect(errors).toEqual([
      [new Error('boom'), { kind: 'hostLaunch', name: 'boom' }],
      [new RangeError('later'), { kind: 'hostLaunch', name: '(anonymous)' }],
    ]);
  });

  it('reports an onDone callback that throws by its own name', async () => {
    const s = stream();
    const errors: [unknown, unknown][] = [];
    s.on('error', (error, context) => errors.push([error, context]));
    s.onDone(function whenDone() {
      throw new Error('done badly');
    });
    s.onDone(async () => {
      throw new Error('later');
    });
    await s.synchronized();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(errors).toEqual([
      [new Error('done badly'), { kind: 'onDone', name: 'whenDone' }],
      [new Error('later'), { kind: 'onDone', name: '(anonymous)' }],
    ]);
  });

  it('warns when a step fails and nobody listens', async () => {
    const s = stream();
    // Caught where Node would print it, so that the suite's output stays clean.
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      s.hostLaunch(function unheard() {
        throw new Error('nobody listens');
      });
      await s.synchronized();
      expect(warn.mock.calls).toEqual([
        [
          "A hostLaunch step (unheard) failed and the stream has no 'error' listener: Error: nobody listens",
          { type: 'RxcudaWarning', code: STEP_FAILED_WARNING },
        ],
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  it('takes any amount of work behind an unfinished step, at once and losing nothing', async () => {
    const s = stream();
    const slot = device.allocHost('u32', 1);
    let open!: () => void;
    const released = new Promise<void>((resolve) => (open = resolve));
    s.hostLaunch(() => released);
    const start = performance.now();
    for (let i = 0; i < 5000; i++) s.launch(store, one, [slot, i]);
    for (let i = 0; i < 100; i++) s.hostLaunch(() => void (slot.data[0]! += 0));
    const took = performance.now() - start;
    expect(s.query()).toBe(false);
    await new Promise((r) => setTimeout(r, 20));
    expect(slot.data[0]).toBe(0); // everything waits for the step
    open();
    await s.synchronized();
    expect(slot.data[0]).toBe(4999);
    expect(took).toBeLessThan(5000);
  });

  it.skipIf(backend === 'host')('rejects host steps during graph capture, and the capture stays valid', async () => {
    const s = stream();
    expect(helpers.beginCapture(s.handle)).toBe('CUDA_SUCCESS');
    let error: unknown;
    try {
      s.hostLaunch(() => {});
    } catch (e) {
      error = e;
    }
    expect(() => s.onDone(() => {})).toThrow(expect.objectContaining({ name: 'CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED', code: 900 }));
    expect(helpers.endCapture(s.handle)).toBe('CUDA_SUCCESS');
    expect(error).toBeInstanceOf(CudaError);
    expect((error as CudaError).name).toBe('CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED');
    expect((error as CudaError).message).toMatch(/host node/);
    // Once the capture has ended, the stream takes steps and notifications again.
    const order: string[] = [];
    s.hostLaunch(() => void order.push('step'));
    s.onDone(() => void order.push('done'));
    await s.synchronized();
    expect(order).toEqual(['step', 'done']);
  });
});

describeBackends('Stream.onDone', (getDevice) => {
  it('calls back after the work before it, without holding the stream', async () => {
    const device = getDevice();
    const { store } = await testKernels(device);
    const s = device.createStream();
    const before = device.allocHost('u32', 1);
    const after = device.allocHost('u32', 1);
    const seen: unknown[] = [];
    s.launch(store, { grid: 1, block: 1 }, [before, 3]);
    s.onDone((error) => {
      seen.push(error, before.data[0]);
      return new Promise(() => {}); // never settles, and still holds nothing
    });
    s.launch(store, { grid: 1, block: 1 }, [after, 4]);
    await s.synchronized();
    expect(seen).toEqual([undefined, 3]);
    expect(after.data[0]).toBe(4);
    s.close();
  });
});

describeBackends('Stream.launchHostFunction', (getDevice) => {
  it('runs a compiled host function with its user data, in stream order', async () => {
    const device = getDevice();
    const s = device.createStream();
    const counter = device.allocHost('u32', 1);
    counter.data[0] = 0;
    for (let i = 0; i < 3; i++) s.launchHostFunction(helpers.countCalls, counter);
    s.launchHostFunction(helpers.countCalls, counter.ptr);
    await s.synchronized();
    expect(counter.data[0]).toBe(4);
    expect(() => s.launchHostFunction(0n)).toThrow(TypeError);
    expect(() => s.launchHostFunction(helpers.countCalls, -1n)).toThrow(TypeError);
    s.close();
  });
});
