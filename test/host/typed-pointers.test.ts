// Typed pointer parameters ('ptr<f32>'): checked at compile time (this file is type-checked by
// `npm test`'s pretest), refused at run time, and handed to CPU implementations as TypedArrays.
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  Device, LaunchConfig, type CpuArgs, type DeviceArray, type HostArray, type KernelArgs, type Memory,
} from '../../src/index.js';
import { fakeDevice, fakeDeviceArray, fakeHostArray, fakeKernel, fakeStream } from '../support/fakes.js';

const config = new LaunchConfig({ grid: 1, block: 1 });

describe('KernelArgs with typed pointers', () => {
  it('takes memory of the declared element type only', () => {
    type Args = KernelArgs<readonly ['ptr<f32>', 'ptr<u8>', 'u32']>;
    expectTypeOf<Args[0]>().toEqualTypeOf<Memory<'f32'>>();
    expectTypeOf<DeviceArray<'f32'>>().toExtend<Args[0]>();
    expectTypeOf<HostArray<'f32'>>().toExtend<Args[0]>();
    expectTypeOf<DeviceArray<'u8'>>().not.toExtend<Args[0]>();
    expectTypeOf<DeviceArray<'f64'>>().not.toExtend<Args[0]>();
    expectTypeOf<bigint>().not.toExtend<Args[0]>();
    expectTypeOf<DeviceArray<'u8'>>().toExtend<Args[1]>();
  });

  it('leaves plain ptr taking any memory or an address', () => {
    type Args = KernelArgs<readonly ['ptr']>;
    expectTypeOf<DeviceArray<'u8'>>().toExtend<Args[0]>();
    expectTypeOf<DeviceArray<'f32'>>().toExtend<Args[0]>();
    expectTypeOf<bigint>().toExtend<Args[0]>();
  });

  it('hands CPU implementations the TypedArray of the element type', () => {
    type Args = CpuArgs<readonly ['ptr<f32>', 'ptr<u8>', 'ptr<i64>', 'ptr<f16>', 'ptr', 'u32']>;
    expectTypeOf<Args[0]>().toEqualTypeOf<Float32Array>();
    expectTypeOf<Args[1]>().toEqualTypeOf<Uint8Array>();
    expectTypeOf<Args[2]>().toEqualTypeOf<BigInt64Array>();
    expectTypeOf<Args[3]>().toEqualTypeOf<Uint16Array>();
    expectTypeOf<bigint>().toExtend<Args[4]>();
    expectTypeOf<Args[5]>().toEqualTypeOf<number>();
  });
});

describe('Kernel launch packing with typed pointers', () => {
  it('passes memory of the declared type by address, as plain ptr does', () => {
    const { kernel, launches, device } = fakeKernel(['ptr<f32>', 'ptr<u8>']);
    const floats = fakeDeviceArray(device, 0x7f00_0000_2000n);
    const bytes = fakeDeviceArray(device, 0x7f00_0000_3000n, 16, 'u8');
    kernel.engine.launchOn(fakeStream(device), config, [floats, bytes]);
    expect(launches[0]!.args.getBigUint64(0, true)).toBe(0x7f00_0000_2000n);
    expect(launches[0]!.args.getBigUint64(8, true)).toBe(0x7f00_0000_3000n);
  });

  it('rejects memory of another element type with a TypeError naming the argument, and launches nothing', () => {
    const { kernel, launches, device } = fakeKernel(['u32', 'ptr<f32>']);
    const bytes = fakeDeviceArray(device, 0x7f00_0000_3000n, 16, 'u8');
    // @ts-expect-error: a DeviceArray<'u8'> where ptr<f32> is declared
    expect(() => kernel.engine.launchOn(fakeStream(device), config, [1, bytes])).toThrow(
      new TypeError('Expected `args[1]` to be memory of f32 (ptr<f32>), got a DeviceArray of u8'),
    );
    expect(launches).toHaveLength(0);
  });

  it('rejects a raw address, which only plain ptr takes', () => {
    const { kernel, launches, device } = fakeKernel(['ptr<f32>']);
    // @ts-expect-error: a typed pointer takes memory, not an address
    expect(() => kernel.engine.launchOn(fakeStream(device), config, [0x1000n])).toThrow(
      new TypeError("Expected `args[0]` to be a DeviceArray or HostArray of f32 (ptr<f32>; a raw address needs 'ptr'), got 4096n"),
    );
    expect(launches).toHaveLength(0);
  });

  it('still refuses closed memory and memory of another device', () => {
    const { kernel, device } = fakeKernel(['ptr<f32>']);
    const closed = fakeDeviceArray(device);
    closed.close();
    expect(() => kernel.engine.launchOn(fakeStream(device), config, [closed])).toThrow(/`args\[0\]` to be open memory, got a closed DeviceArray/);
    expect(() => kernel.engine.launchOn(fakeStream(device), config, [fakeDeviceArray(fakeDevice(1))])).toThrow(
      new RangeError('Expected `args[0]` to be memory of device 0, got memory of device 1'),
    );
    expect(() => kernel.engine.launchOn(fakeStream(device), config, [fakeHostArray(fakeDevice(1))])).not.toThrow();
  });

  it('declares every typed pointer as 8 bytes to the driver, and refuses unknown element types', () => {
    expect(() => fakeKernel(['ptr<f16>', 'ptr<u64>', 'u32'], { paramSizes: [8, 8, 4] })).not.toThrow();
    expect(() => fakeKernel(['ptr<f8>' as never])).toThrow(
      /^Expected `signature\[0\]` to be one of i8, .*, 'ptr', 'ptr<dtype>' \(e\.g\. 'ptr<f32>'\), 'condition' or \{ struct: bytes, align\? \}, got "ptr<f8>"$/,
    );
  });
});

describe('typed pointers on the host device', () => {
  it('give the CPU implementation a Float32Array over the memory, and the results come back', async () => {
    const device = Device.host();
    const module = await device.compile('extern "C" __global__ void saxpy(unsigned n, float a, const float* x, float* y) {}');
    const received: string[] = [];
    const saxpy = module.kernel('saxpy', ['u32', 'f32', 'ptr<f32>', 'ptr<f32>'], {
      cpu: (_, [n, a, x, y]) => {
        received.push(x.constructor.name, y.constructor.name);
        for (let i = 0; i < n; i++) y[i] = Math.fround(a * x[i]! + y[i]!);
      },
    });
    using stream = device.createStream();
    const host = device.allocHost('f32', 4);
    host.data.set([1, 2, 3, 4]);
    using x = stream.alloc('f32', 4);
    using y = stream.alloc('f32', 4);
    stream.copy(x, host);
    stream.copy(y, host);
    stream.launch(saxpy, { grid: 1, block: 4 }, [4, 2, x, y]);
    stream.copy(host, y);
    await stream.synchronized();
    expect(received).toEqual(['Float32Array', 'Float32Array']);
    expect([...host.data]).toEqual([3, 6, 9, 12]);
  });

  it('refuses a DeviceArray<u8> for ptr<f32> before anything is enqueued', async () => {
    const device = Device.host();
    const module = await device.compile('extern "C" __global__ void k(float* x) {}');
    let ran = false;
    const kernel = module.kernel('k', ['ptr<f32>'], { cpu: () => void (ran = true) });
    using stream = device.createStream();
    using bytes = stream.alloc('u8', 4);
    // @ts-expect-error: a DeviceArray<'u8'> where ptr<f32> is declared
    expect(() => stream.launch(kernel, { grid: 1, block: 1 }, [bytes])).toThrow(
      new TypeError('Expected `args[0]` to be memory of f32 (ptr<f32>), got a DeviceArray of u8'),
    );
    await stream.synchronized();
    expect(ran).toBe(false);
  });
});
