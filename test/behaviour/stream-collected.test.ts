// A closed stream is collected once its work is done, whatever modules it launched kernels of
// (issue 27's leak: a long-lived module kept every such stream, and all it referenced).
import { beforeAll, expect, it } from 'vitest';
import { Builtins, type Device, type Kernel } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { gc } from '../support/gc.js';
import { testKernels } from '../support/kernels.js';

describeBackends('a closed stream', (getDevice) => {
  let device: Device;
  let builtins: Builtins;
  let store: Kernel<readonly ['ptr', 'u32']>;
  beforeAll(async () => {
    device = getDevice();
    builtins = await Builtins.for(device);
    ({ store } = await testKernels(device));
  });

  /**
   * Whether `ref`'s target is collected within 50 rounds of garbage collection. Each collection
   * runs in a turn of its own, after the one that last asked `deref()`: a target asked for stays
   * alive until the end of that turn.
   */
  async function collected(ref: WeakRef<object>): Promise<boolean> {
    for (let i = 0; i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      gc();
      await new Promise((resolve) => setImmediate(resolve));
      if (ref.deref() === undefined) return true;
    }
    return false;
  }

  /** A stream that ran `work`, awaited and closed; a WeakRef to it, made where nothing else keeps it. */
  async function closedAfter(work: (s: ReturnType<Device['createStream']>) => void): Promise<{ ref: WeakRef<object>; value: number }> {
    const s = device.createStream();
    const out = device.allocHost('u32', 1);
    work(s);
    s.launch(store, { grid: 1, block: 1 }, [out, 5]);
    await s.synchronized();
    s.close();
    return { ref: new WeakRef(s), value: out.data[0]! };
  }

  it("is collected once its work is done, after launching a builtin and a test kernel (long-lived modules)", async () => {
    const { ref, value } = await closedAfter((s) => {
      const x = s.alloc('u32', 4);
      builtins.fill(s, x, 1);
      x.close();
    });
    expect(value).toBe(5);
    expect(await collected(ref)).toBe(true);
  });

  it('is collected while the module it used stays loaded and launches on other streams', async () => {
    const { ref } = await closedAfter(() => {});
    const other = device.createStream();
    const out = device.allocHost('u32', 1);
    other.launch(store, { grid: 1, block: 1 }, [out, 6]);
    await other.synchronized();
    expect(out.data[0]).toBe(6);
    expect(await collected(ref)).toBe(true);
    other.close();
  });
});
