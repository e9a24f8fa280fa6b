// A CPU kernel that throws a sticky CudaError breaks its host device as an illegal address breaks
// a GPU's context: waits pending on any of its streams reject with it, the work queued behind the
// fault has no effect, and later calls throw it. Another host device goes on.
import { describe, expect, it } from 'vitest';
import { CudaError, Device } from '../../src/index.js';

const illegalAddress = () => new CudaError(700, 'CUDA_ERROR_ILLEGAL_ADDRESS', 'cuLaunchKernelEx', 'an illegal memory access was encountered');
const [broken, other] = Device.hosts(2);

/** Settles `promise` to what it resolved to or the error it rejected with. */
const outcome = (promise: Promise<unknown>) => promise.then((value) => ({ value }), (error: unknown) => ({ error }));

describe('a sticky fault on the host device', () => {
  it('rejects pending waits on every stream of the device, skips the work behind it, and throws after', async () => {
    const device = broken!;
    const module = await device.compile('extern "C" __global__ void fault() {}');
    const fault = module.kernel('fault', [], {
      cpu: async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw illegalAddress();
      },
    });
    const s = device.createStream();
    const t = device.createStream();
    const errors: unknown[] = [];
    s.on('error', (error) => errors.push(error));
    const memory = s.alloc('u32', 4);
    const host = device.allocHost('u32', 4);
    s.fill(memory, 1);
    s.copy(host, memory);
    await s.synchronized();
    expect([...host.data]).toEqual([1, 1, 1, 1]);

    // A stream of the same device, held by a step until the fault is reported.
    let releaseT: () => void = () => {};
    s.on('error', () => releaseT());
    t.hostLaunch(() => new Promise<void>((resolve) => (releaseT = resolve)));
    const onT = outcome(t.synchronized());
    s.launch(fault, { grid: 1, block: 1 }, []);
    s.fill(memory, 42); // behind the fault
    s.copy(host, memory);
    const settled = await Promise.all([outcome(s.synchronized()), outcome(s.synchronized({ spin: 200 })), onT]);
    for (const one of settled) {
      expect(one).toHaveProperty('error');
      expect((one as { error: CudaError }).error).toBeInstanceOf(CudaError);
      expect((one as { error: CudaError }).error.code).toBe(700);
    }
    expect(device.poisoned?.code).toBe(700);
    expect(errors).toHaveLength(1);
    expect([...host.data]).toEqual([1, 1, 1, 1]); // the fill and copy behind the fault had no effect
    expect(() => t.fill(memory, 3)).toThrow(CudaError);
    expect(() => device.createStream()).toThrow(CudaError);
  });

  it('leaves another host device working', async () => {
    const device = other!;
    const s = device.createStream();
    const memory = s.alloc('u32', 2);
    const host = device.allocHost('u32', 2);
    s.fill(memory, 9);
    s.copy(host, memory);
    await s.synchronized();
    expect([...host.data]).toEqual([9, 9]);
    expect(device.poisoned).toBeUndefined();
  });
});
