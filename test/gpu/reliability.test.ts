// The reliability fixes where only a GPU can show them: priorities clamp in the driver instead of
// wrapping, a copy between element types is refused before the driver sees it, and a step's
// timeout lets a CUDA stream's queued kernel go.
import { expect, it } from 'vitest';
import { Device } from '../../src/index.js';
import { describeGpu } from '../support/gpu.js';
import { testKernels } from '../support/kernels.js';

describeGpu('reliability on a CUDA device', () => {
  it('clamps the widest int priorities to the device range, least and most urgent, without wrapping', () => {
    const device = Device.default();
    const least = device.createStream({ priority: 2 ** 31 - 1 });
    const most = device.createStream({ priority: -(2 ** 31) });
    const plain = device.createStream();
    // Lower is more urgent: the widest positive int must not become the most urgent one.
    expect(least.priority).toBeGreaterThanOrEqual(plain.priority);
    expect(most.priority).toBeLessThanOrEqual(plain.priority);
    expect(most.priority).toBeLessThan(least.priority);
    expect(() => device.createStream({ priority: 2 ** 31 })).toThrow(RangeError);
    for (const s of [least, most, plain]) s.close();
  });

  it('refuses a copy between element types of equal byte size before the driver sees it', async () => {
    const device = Device.default();
    const s = device.createStream();
    const f32 = s.alloc('f32', 4);
    const u32 = device.allocHost('u32', 4);
    const before = s.engine.given;
    expect(() => s.copy(u32, f32 as never)).toThrow(new TypeError('Expected `src` to be memory of u32, as `dst` is, got a DeviceArray of f32'));
    expect(s.engine.given).toBe(before);
    await s.synchronized();
    s.close();
  });

  it('gives up a step that never settles and runs the kernel queued behind it', async () => {
    const device = Device.default();
    const { store } = await testKernels(device);
    const s = device.createStream();
    const errors: unknown[] = [];
    s.on('error', (e) => void errors.push(e));
    const out = device.allocHost('u32', 1);
    s.hostLaunch(() => new Promise(() => {}), { timeout: 20 });
    s.launch(store, { grid: 1, block: 1 }, [out, 99]);
    await s.synchronized();
    expect(out.data[0]).toBe(99);
    expect(errors.map((e) => (e as Error).name)).toEqual(['HostStepTimeoutError']);
    s.close();
  });
});
