// Closed and broken objects: a closed HostArray's `data` throws instead of handing out an emptied
// array, and a method that returns a Promise reports a closed stream or event, or a broken device,
// by rejecting (as Node's promise APIs do); `onDone`, which returns nothing, throws at once.
import { describe, expect, it } from 'vitest';
import { CudaError, Device } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';

const CLOSED_STREAM = 'Expected `stream` to be open, got a closed Stream';
const CLOSED_ARRAY = 'Expected `array` to be an open HostArray, got a closed HostArray';

/** A TypeError (of whichever subclass) with exactly `message`. */
const typeErrorWith = (message: string) => expect.objectContaining({ name: 'TypeError', message });

/** Calls `call` and says whether it threw at once, and what its Promise settled to. */
async function settle(call: () => Promise<unknown>): Promise<{ threw: boolean; error?: unknown }> {
  let promise: Promise<unknown>;
  try {
    promise = call();
  } catch (error) {
    return { threw: true, error };
  }
  return promise.then(() => ({ threw: false }), (error: unknown) => ({ threw: false, error }));
}

describeBackends('a closed HostArray', (getDevice) => {
  it('refuses its data, allocated or registered, rather than hand out an emptied array', async () => {
    const device = getDevice();
    const pinned = device.allocHost('u32', 4);
    pinned.data.set([1, 2, 3, 4]);
    const kept = pinned.data;
    pinned.close();
    expect(() => pinned.data).toThrow(typeErrorWith(CLOSED_ARRAY));
    expect(kept.length).toBe(0); // a view taken before is emptied: it reaches no freed memory

    const mine = new Uint32Array([5, 6]);
    const registered = device.registerHost(mine);
    expect(registered.data).toBe(mine);
    registered.close();
    expect(() => registered.data).toThrow(typeErrorWith(CLOSED_ARRAY));
    expect([...mine]).toEqual([5, 6]); // the user's array stays the user's
  });

  it('refuses views of it, as a closed DeviceArray refuses them', () => {
    const device = getDevice();
    const s = device.createStream();
    const pinned = device.allocHost('u32', 4);
    const onDevice = s.alloc('u32', 4);
    pinned.close();
    onDevice.close();
    expect(() => pinned.subarray(1, 2)).toThrow(typeErrorWith(CLOSED_ARRAY));
    expect(() => onDevice.subarray(1, 2)).toThrow(typeErrorWith('Expected `array` to be an open DeviceArray, got a closed DeviceArray'));
    s.close();
  });

  it('keeps its data for the work enqueued before close(), which still runs', async () => {
    const device = getDevice();
    const s = device.createStream();
    const source = device.allocHost('u32', 3);
    source.data.set([7, 8, 9]);
    const onDevice = s.alloc('u32', 3);
    const target = device.allocHost('u32', 3);
    s.hostLaunch(() => new Promise((resolve) => setTimeout(resolve, 20))); // holds the copies in the queue
    s.copy(onDevice, source);
    s.copy(target, onDevice);
    source.close();
    await s.synchronized();
    expect([...target.data]).toEqual([7, 8, 9]);
    s.close();
  });
});

describeBackends('a closed stream', (getDevice) => {
  const closedStream = () => {
    const s = getDevice().createStream();
    s.close();
    return s;
  };

  for (const [method, call] of [
    ['synchronized()', (s) => s.synchronized()],
    ['synchronized({ spin })', (s) => s.synchronized({ spin: 100 })],
    ['flushed()', (s) => s.flushed()],
    ['capture()', (s) => s.capture(() => {})],
  ] as const satisfies readonly (readonly [string, (s: ReturnType<typeof closedStream>) => Promise<unknown>])[]) {
    it(`rejects ${method}, never throwing, so that .catch() sees it`, async () => {
      expect(await settle(() => call(closedStream()))).toEqual({ threw: false, error: typeErrorWith(CLOSED_STREAM) });
    });
  }

  it('still throws at once for bad options of synchronized(): an argument error', () => {
    expect(() => closedStream().synchronized({ spin: -1 })).toThrow(RangeError);
  });

  it('throws at once from onDone(fn), which returns no Promise, and never calls fn', async () => {
    let called = false;
    expect(() => closedStream().onDone(() => void (called = true))).toThrow(typeErrorWith(CLOSED_STREAM));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(called).toBe(false);
  });
});

describeBackends('event.completed()', (getDevice) => {
  it('rejects for a closed event and for one never recorded, never throwing', async () => {
    const device = getDevice();
    const never = device.createEvent();
    expect(await settle(() => never.completed())).toEqual({ threw: false, error: expect.any(TypeError) });
    const s = device.createStream();
    const closed = s.record();
    await s.synchronized();
    closed.close();
    expect(await settle(() => closed.completed())).toEqual({ threw: false, error: expect.any(TypeError) });
    s.close();
  });
});

describe('a broken host device', () => {
  const device = Device.hosts(8)[7]!; // a device of this file alone
  const illegalAddress = () => new CudaError(700, 'CUDA_ERROR_ILLEGAL_ADDRESS', 'cuLaunchKernelEx', 'an illegal memory access was encountered');

  it('rejects the Promises of its streams, events and modules with the error that broke it', async () => {
    const module = await device.compile('extern "C" __global__ void fault() {}');
    const fault = module.kernel('fault', [], { cpu: () => { throw illegalAddress(); } });
    const s = device.createStream();
    s.on('error', () => {});
    const event = s.record();
    s.launch(fault, { grid: 1, block: 1 }, []);
    await s.synchronized().catch(() => {});
    expect(device.poisoned?.code).toBe(700);
    const broken = expect.objectContaining({ name: 'CUDA_ERROR_ILLEGAL_ADDRESS', code: 700 });
    expect(await settle(() => s.synchronized())).toEqual({ threw: false, error: broken });
    expect(await settle(() => s.flushed())).toEqual({ threw: false, error: broken });
    expect(await settle(() => s.capture(() => {}))).toEqual({ threw: false, error: broken });
    expect(await settle(() => event.completed())).toEqual({ threw: false, error: broken });
    expect(await settle(() => device.compile('extern "C" __global__ void k() {}'))).toEqual({ threw: false, error: broken });
    expect(await settle(() => device.loadModule('.version 8.0'))).toEqual({ threw: false, error: broken });
    expect(() => s.onDone(() => {})).toThrow(broken);
  });
});
