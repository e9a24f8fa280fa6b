import { afterAll, beforeAll, expect, it } from 'vitest';
import { CudaError, Device, LaunchConfig, type Module, type Stream } from '../../src/index.js';
import { describeGpu } from '../support/gpu.js';
import { testModule } from '../support/kernels.js';

describeGpu('Kernel launches', () => {
  let device: Device;
  let s: Stream;
  let module: Module;
  beforeAll(async () => {
    device = Device.default();
    s = device.createStream();
    module = await testModule();
  });
  afterAll(() => s.close());

  it('runs saxpy over 10^6 elements with exact results', async () => {
    const n = 1_000_000;
    const saxpy = module.kernel('saxpy', ['u32', 'f32', 'ptr', 'ptr']);
    const hx = device.allocHost('f32', n);
    const hy = device.allocHost('f32', n);
    for (let i = 0; i < n; i++) {
      hx.data[i] = Math.fround(i * 0.25 - 1000);
      hy.data[i] = Math.fround(Math.sin(i));
    }
    const x = s.alloc('f32', n);
    const y = s.alloc('f32', n);
    s.copy(x, hx);
    s.copy(y, hy);
    const a = 2.5;
    s.launch(saxpy, { grid: Math.ceil(n / 256), block: 256 }, [n, a, x, y]);
    const out = device.allocHost('f32', n);
    s.copy(out, y);
    await s.synchronized();
    let mismatches = 0;
    for (let i = 0; i < n; i++) {
      const expected = Math.fround(Math.fround(a * hx.data[i]!) + hy.data[i]!);
      if (out.data[i] !== expected) mismatches++;
    }
    expect(mismatches).toBe(0);
    x.close();
    y.close();
  });

  it('passes every scalar type with its sign and width', async () => {
    const kernel = module.kernel('scalars', ['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f16', 'f32', 'f64', 'ptr']);
    const out = s.alloc('u8', 56);
    const host = device.allocHost('u8', 56);
    const big = 2n ** 64n - 3n;
    s.launch(kernel, { grid: 1, block: 1 }, [-100, 250, -30000, 60000, -2_000_000_000, 4_000_000_000, -(2n ** 62n) - 7n, big, -0.5, 1.1, -Math.PI, out]);
    s.copy(host, out);
    await s.synchronized();
    const v = new DataView(host.data.buffer, host.data.byteOffset, 56);
    expect(v.getInt32(0, true)).toBe(-100);
    expect(v.getUint32(4, true)).toBe(250);
    expect(v.getInt32(8, true)).toBe(-30000);
    expect(v.getUint32(12, true)).toBe(60000);
    expect(v.getInt32(16, true)).toBe(-2_000_000_000);
    expect(v.getUint32(20, true)).toBe(4_000_000_000);
    expect(v.getBigInt64(24, true)).toBe(-(2n ** 62n) - 7n);
    expect(v.getBigUint64(32, true)).toBe(big);
    expect(v.getFloat32(40, true)).toBe(-0.5);
    expect(v.getFloat32(44, true)).toBe(Math.fround(1.1));
    expect(v.getFloat64(48, true)).toBe(-Math.PI);
    out.close();
  });

  it('passes a struct by value', async () => {
    const kernel = module.kernel('by_value', [{ struct: 24, align: 8 }, 'ptr']);
    const params = new DataView(new ArrayBuffer(24));
    params.setInt32(0, -42, true);
    params.setFloat32(4, 0.75, true);
    params.setFloat64(8, 1e300, true);
    params.setInt16(16, -7, true);
    const out = s.alloc('u8', 24);
    const host = device.allocHost('u8', 24);
    s.launch(kernel, { grid: 1, block: 1 }, [params, out]);
    s.copy(host, out);
    await s.synchronized();
    const v = new DataView(host.data.buffer, host.data.byteOffset, 24);
    expect([v.getInt32(0, true), v.getFloat32(4, true), v.getFloat64(8, true), v.getInt32(16, true)]).toEqual([-42, 0.75, 1e300, -7]);
  });

  it('finds templated kernels through name expressions', async () => {
    const scale = module.kernel('scale<double>', ['ptr', 'f64', 'u32']);
    const host = device.allocHost('f64', 3);
    host.data.set([1, 2, 3]);
    const a = s.alloc('f64', 3);
    s.copy(a, host);
    s.launch(scale, { grid: 1, block: 32 }, [a, 0.5, 3]);
    s.copy(host, a);
    await s.synchronized();
    expect([...host.data]).toEqual([0.5, 1, 1.5]);
  });

  it('checks the signature against the driver and finds unknown kernels missing', () => {
    expect(() => module.kernel('saxpy', ['u32', 'f32', 'ptr'])).toThrow(/Expected `signature` to be 4 parameters of 4, 4, 8, 8 bytes/);
    expect(() => module.kernel('saxpy', ['u32', 'f64', 'ptr', 'ptr'])).toThrow(TypeError);
    let error: unknown;
    try {
      module.kernel('no_such_kernel', []);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CudaError);
    expect((error as CudaError).name).toBe('CUDA_ERROR_NOT_FOUND');
    expect((error as CudaError).call).toBe('cuModuleGetFunction');
  });

  it('reports attributes and occupancy', () => {
    const saxpy = module.kernel('saxpy', ['u32', 'f32', 'ptr', 'ptr']);
    expect(saxpy.attributes.numRegs).toBeGreaterThan(0);
    expect(saxpy.attributes.maxThreadsPerBlock).toBeGreaterThan(0);
    expect(saxpy.attributes.binaryVersion).toBe(device.properties.major * 10 + device.properties.minor);
    const { blockSize, minGridSize } = saxpy.suggestedBlockSize();
    expect(blockSize % 32).toBe(0);
    expect(blockSize).toBeLessThanOrEqual(1024);
    expect(minGridSize).toBeGreaterThanOrEqual(device.properties.multiprocessors);
    expect(saxpy.maxActiveBlocks(256)).toBeGreaterThanOrEqual(1);
    expect(typeof saxpy.handle).toBe('bigint');
  });

  it('launches with dynamic shared memory beyond the default after opting in', async () => {
    const kernel = module.kernel('shared_sum', ['ptr']);
    const out = s.alloc('u32', 1);
    const host = device.allocHost('u32', 1);
    const big = 100 * 1024;
    kernel.setMaxDynamicSharedMemory(big);
    s.launch(kernel, { grid: 1, block: 256, sharedMem: big }, [out]);
    s.copy(host, out);
    await s.synchronized();
    expect(host.data[0]).toBe((255 * 256) / 2);
  });

  it('launches clusters and cooperative kernels where the device has them', async () => {
    const count = module.kernel('count', ['ptr']);
    const counter = s.alloc('u32', 1);
    s.fill(counter, 0);
    if (device.properties.clusterLaunch) s.launch(count, { grid: 8, block: 32, cluster: 2 }, [counter]);
    if (device.properties.cooperativeLaunch) s.launch(count, { grid: 4, block: 64, cooperative: true }, [counter]);
    const host = device.allocHost('u32', 1);
    s.copy(host, counter);
    await s.synchronized();
    expect(host.data[0]).toBe((device.properties.clusterLaunch ? 256 : 0) + (device.properties.cooperativeLaunch ? 256 : 0));
  });

  it('rejects every bad input with nothing enqueued', async () => {
    const count = module.kernel('count', ['ptr']);
    const saxpy = module.kernel('saxpy', ['u32', 'f32', 'ptr', 'ptr']);
    const counter = s.alloc('u32', 1);
    s.fill(counter, 0);
    const one = new LaunchConfig({ grid: 1, block: 1 });
    const closed = s.alloc('u32', 1);
    closed.close();
    const attempts: [() => void, typeof Error, RegExp][] = [
      [() => s.launch(count, one, [] as never), TypeError, /`args` to be 1 arguments/],
      [() => s.launch(count, one, [1] as never), TypeError, /`args\[0\]`/],
      [() => s.launch(count, one, [closed]), TypeError, /open memory/],
      [() => s.launch(count, { grid: 1.5, block: 1 }, [counter]), TypeError, /`grid`/],
      [() => s.launch(count, { grid: 0, block: 1 }, [counter]), RangeError, /`grid`/],
      [() => s.launch(count, { grid: 1, block: 2048 }, [counter]), RangeError, /Expected `block` to be 1\.\.1024 threads, got 2048/],
      [() => s.launch(count, { grid: 1, block: [1, 1, 65] }, [counter]), RangeError, /`block`/],
      [() => s.launch(count, { grid: 1, block: 1, sharedMem: 10 ** 7 }, [counter]), RangeError, /`sharedMem`/],
      [() => s.launch(count, { grid: 3, block: 1, cluster: 2 }, [counter]), RangeError, /multiple of `cluster`/],
      [() => s.launch(saxpy, one, [-1, 1, counter, counter]), RangeError, /`args\[0\]`/],
      [() => s.launch(saxpy, one, [1, '2' as never, counter, counter]), TypeError, /`args\[1\]` to be a number/],
    ];
    for (const [attempt, type, message] of attempts) {
      expect(attempt).toThrow(type);
      expect(attempt).toThrow(message);
    }
    s.launch(count, one, [counter]);
    const host = device.allocHost('u32', 1);
    s.copy(host, counter);
    await s.synchronized();
    expect(host.data[0]).toBe(1);
  });
});
