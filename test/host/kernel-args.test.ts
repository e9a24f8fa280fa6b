// Argument packing and validation of Kernel launches, against stand-in native objects.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CudaError, Device, LaunchConfig, fromHalfBits, toHalfBits } from '../../src/index.js';
import { fakeDevice, fakeDeviceArray, fakeHostArray, fakeKernel, fakeStream } from '../support/fakes.js';
import { streamsPerTest } from '../support/streams.js';

const config = new LaunchConfig({ grid: [2, 3, 4], block: [32, 4, 1], sharedMem: 128 });

describe('Kernel launch packing', () => {
  it('writes the grid, block, shared memory and stream into the header', () => {
    const { kernel, launches, device } = fakeKernel([]);
    kernel.engine.launchOn(fakeStream(device, 0xdead_beef_cafen), config, []);
    expect([...launches[0]!.header]).toEqual([2, 3, 4, 32, 4, 1, 128, 0, 0, 0, 0]);
    expect(launches[0]!.stream).toBe(0xdead_beef_cafen);
  });

  it('encodes every scalar width with its sign', () => {
    const signature = ['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f16', 'f32', 'f64'] as const;
    const { kernel, launches, device, offsets } = fakeKernel(signature);
    const big = 2n ** 63n + 12345n;
    kernel.engine.launchOn(fakeStream(device), config, [-5, 250, -30000, 65000, -2_000_000_000, 4_000_000_000, -(2n ** 62n), big, 1.5, 0.1, Math.PI]);
    const view = launches[0]!.args;
    const at = offsets();
    expect(view.getInt8(at[0]!)).toBe(-5);
    expect(view.getUint8(at[1]!)).toBe(250);
    expect(view.getInt16(at[2]!, true)).toBe(-30000);
    expect(view.getUint16(at[3]!, true)).toBe(65000);
    expect(view.getInt32(at[4]!, true)).toBe(-2_000_000_000);
    expect(view.getUint32(at[5]!, true)).toBe(4_000_000_000);
    expect(view.getBigInt64(at[6]!, true)).toBe(-(2n ** 62n));
    expect(view.getBigUint64(at[7]!, true)).toBe(big);
    expect(view.getUint16(at[8]!, true)).toBe(toHalfBits(1.5));
    expect(view.getFloat32(at[9]!, true)).toBe(Math.fround(0.1));
    expect(view.getFloat64(at[10]!, true)).toBe(Math.PI);
    for (let i = 0; i < signature.length; i++) expect(at[i]! % Math.min(8, [1, 1, 2, 2, 4, 4, 8, 8, 2, 4, 8][i]!)).toBe(0);
  });

  it('takes 64-bit integers as safe numbers too', () => {
    const { kernel, launches, device } = fakeKernel(['i64', 'u64']);
    fc.assert(
      fc.property(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), fc.nat({ max: Number.MAX_SAFE_INTEGER }), (i, u) => {
        kernel.engine.launchOn(fakeStream(device), config, [i, u]);
        const view = launches.at(-1)!.args;
        expect(view.getBigInt64(0, true)).toBe(BigInt(i));
        expect(view.getBigUint64(8, true)).toBe(BigInt(u));
      }),
    );
  });

  it('passes device and pinned host memory by address, and bigint addresses as they are', () => {
    const { kernel, launches, device } = fakeKernel(['ptr', 'ptr', 'ptr']);
    const array = fakeDeviceArray(device, 0x7f12_3456_7000n).subarray(4);
    const host = fakeHostArray(fakeDevice(1));
    kernel.engine.launchOn(fakeStream(device), config, [array, host, 0xabcdn]);
    const view = launches[0]!.args;
    expect(view.getBigUint64(0, true)).toBe(0x7f12_3456_7010n);
    expect(view.getBigUint64(8, true)).toBe(host.ptr);
    expect(view.getBigUint64(16, true)).toBe(0xabcdn);
  });

  it('copies structs by value', () => {
    const { kernel, launches, device } = fakeKernel(['u8', { struct: 12, align: 4 }]);
    const bytes = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    kernel.engine.launchOn(fakeStream(device), config, [7, bytes]);
    expect(new Uint8Array(launches[0]!.args.buffer, 64 + 4, 12)).toEqual(bytes);
  });
});

describe('Kernel launch validation', () => {
  const bad: [string, unknown[], RegExp, typeof TypeError][] = [
    ['too few arguments', [1], /Expected `args` to be 3 arguments \(u32, f32, ptr\), got 1/, TypeError],
    ['a string for u32', ['1', 1, 0n], /`args\[0\]` to be an integer 0\.\.4294967295 \(u32\), got "1"/, TypeError],
    ['a negative u32', [-1, 1, 0n], /`args\[0\]`.*got -1/, RangeError],
    ['a fraction for u32', [1.5, 1, 0n], /`args\[0\]`/, TypeError],
    ['a bigint for f32', [1, 1n, 0n], /`args\[1\]` to be a number within f32's range/, TypeError],
    ['a number for ptr', [1, 1, 5], /`args\[2\]` to be a DeviceArray, a HostArray or a device address/, TypeError],
    ['a plain array for ptr', [1, 1, [1, 2]], /`args\[2\]`/, TypeError],
  ];
  for (const [what, args, message, type] of bad) {
    it(`rejects ${what} and launches nothing`, () => {
      const { kernel, launches, device } = fakeKernel(['u32', 'f32', 'ptr']);
      expect(() => kernel.engine.launchOn(fakeStream(device), config, args as never)).toThrow(type);
      expect(() => kernel.engine.launchOn(fakeStream(device), config, args as never)).toThrow(message);
      expect(launches).toHaveLength(0);
    });
  }

  it('rejects out-of-range integers of every width', () => {
    const cases = [['i8', 128], ['u8', 256], ['i16', -32769], ['u16', 65536], ['i32', 2 ** 31], ['u32', 2 ** 32], ['i64', 2n ** 63n], ['u64', -1n], ['u64', 2 ** 60]] as const;
    for (const [type, value] of cases) {
      const { kernel, launches, device } = fakeKernel([type]);
      expect(() => kernel.engine.launchOn(fakeStream(device), config, [value] as never), `${type} ${value}`).toThrow(RangeError);
      expect(launches).toHaveLength(0);
    }
  });

  it('rejects closed memory, memory of another device and a closed stream', () => {
    const { kernel, launches, device } = fakeKernel(['ptr']);
    const closed = fakeDeviceArray(device);
    closed.close();
    expect(() => kernel.engine.launchOn(fakeStream(device), config, [closed])).toThrow(/`args\[0\]` to be open memory, got a closed DeviceArray/);
    expect(() => kernel.engine.launchOn(fakeStream(device), config, [fakeDeviceArray(fakeDevice(1))])).toThrow(
      new RangeError('Expected `args[0]` to be memory of device 0, got memory of device 1'),
    );
    const stream = fakeStream(device);
    stream.close();
    expect(() => kernel.engine.launchOn(stream, config, [fakeDeviceArray(device)])).toThrow(/closed Stream/);
    expect(launches).toHaveLength(0);
  });

  it('rejects a stream of another device and a bad config before packing', () => {
    const { kernel, launches, device } = fakeKernel(['u32']);
    expect(() => kernel.engine.launchOn(fakeStream(fakeDevice(3)), config, [1])).toThrow(/`stream` to be a stream of device 0/);
    expect(() => kernel.engine.launchOn(fakeStream(device), { grid: 1, block: 2048 }, [1])).toThrow('Expected `block` to be 1..1024 threads, got 2048');
    expect(launches).toHaveLength(0);
  });

  it('rejects a struct of the wrong size', () => {
    const { kernel, launches, device } = fakeKernel([{ struct: 8 }]);
    expect(() => kernel.engine.launchOn(fakeStream(device), config, [new Uint8Array(4)])).toThrow(/8 bytes .* for struct\(8\)/);
    expect(launches).toHaveLength(0);
  });

  it('rejects a signature the driver contradicts', () => {
    expect(() => fakeKernel(['u32', 'ptr'], { paramSizes: [4, 8, 8] })).toThrow(
      new TypeError('Expected `signature` to be 3 parameters of 4, 8, 8 bytes, as the kernel declares, got [u32, ptr] (4, 8 bytes)'),
    );
    expect(() => fakeKernel(['float' as never])).toThrow(/`signature\[0\]`/);
    expect(() => fakeKernel(['u32', 'ptr'], { paramSizes: [4, 8] })).not.toThrow();
  });
});

describe('CPU kernels on the host device', () => {
  const device = Device.host();
  const newStream = streamsPerTest(() => device);

  it('receive f32 and f16 scalars rounded as a GPU kernel receives them, the rest as given', async () => {
    const stream = newStream();
    const module = await device.compile('#include <cuda_fp16.h>\nextern "C" __global__ void scalars(float a, __half b, double c, int d) {}');
    const seen: unknown[][] = [];
    const kernel = module.kernel('scalars', ['f32', 'f16', 'f64', 'i32'], { cpu: (_, args) => void seen.push([...args]) });
    stream.launch(kernel, { grid: 1, block: 1 }, [1 + 2 ** -24, 65519, 1 + 2 ** -24, -7]);
    stream.launch(kernel, { grid: 1, block: 1 }, [0.1, 0.1, 0.1, 7]);
    await stream.synchronized();
    expect(seen).toEqual([
      [1, 65504, 1 + 2 ** -24, -7],
      [Math.fround(0.1), fromHalfBits(toHalfBits(0.1)), 0.1, 7],
    ]);
  });

  it('refuse more than 48 KiB of dynamic shared memory until the kernel opts in, before anything is enqueued, and no more than the device allows', async () => {
    const stream = newStream();
    const module = await device.compile('extern "C" __global__ void shared() {}');
    let ran = 0;
    const kernel = module.kernel('shared', [], { cpu: () => void ran++ });
    const big = { grid: 1, block: 1, sharedMem: 64 * 1024 };
    const before = stream.engine.given;
    expect(() => stream.launch(kernel, big, [])).toThrow(
      new RangeError('Expected `sharedMem` to be at most 49152 bytes for kernel shared (up to 232448 once it opts in with setMaxDynamicSharedMemory), got 65536'),
    );
    expect(stream.engine.given).toBe(before); // refused before anything was enqueued
    expect(() => kernel.setMaxDynamicSharedMemory(device.properties.sharedMemoryPerBlockOptin + 1)).toThrow(CudaError);
    expect(kernel.attributes.maxDynamicSharedSizeBytes).toBe(0);
    kernel.setMaxDynamicSharedMemory(64 * 1024);
    expect(kernel.attributes.maxDynamicSharedSizeBytes).toBe(64 * 1024);
    stream.launch(kernel, big, []);
    await stream.synchronized();
    expect(ran).toBe(1);
    expect(kernel.suggestedBlockSize({ blockLimit: 64 }).blockSize).toBe(64);
  });
});
