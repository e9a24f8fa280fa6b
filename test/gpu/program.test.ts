import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { compile, Device, NvrtcError, type Module } from '../../src/index.js';
import { describeGpu } from '../support/gpu.js';

const ADD_ONE = `extern "C" __global__ void add_one(int* x, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += OFFSET;
}`;

async function runAddOne(module: Module): Promise<number[]> {
  const device = module.device;
  const s = device.createStream();
  const kernel = module.kernel('add_one', ['ptr', 'u32']);
  const host = device.allocHost('i32', 4);
  host.data.set([1, 2, 3, 4]);
  const x = s.alloc('i32', 4);
  s.copy(x, host);
  s.launch(kernel, { grid: 1, block: 32 }, [x, 4]);
  s.copy(host, x);
  await s.synchronized();
  s.close();
  return [...host.data];
}

describeGpu('Device.compile', () => {
  let device: Device;
  beforeAll(() => {
    device = Device.default();
  });
  const cache = mkdtempSync(join(tmpdir(), 'rxcuda-cache-'));
  const modules: Module[] = [];
  afterAll(() => modules.forEach((m) => m.close()));

  it('compiles with defines and caches the result on disk', async () => {
    const first = await device.compile(ADD_ONE, { defines: { OFFSET: 10 }, cache });
    const again = await device.compile(ADD_ONE, { defines: { OFFSET: 10 }, cache });
    const other = await device.compile(ADD_ONE, { defines: { OFFSET: 20 }, cache });
    modules.push(first, again, other);
    expect([first.fromCache, again.fromCache, other.fromCache]).toEqual([false, true, false]);
    expect(readdirSync(cache).filter((f) => f.endsWith('.bin'))).toHaveLength(2);
    expect(await runAddOne(again)).toEqual([11, 12, 13, 14]);
    expect(await runAddOne(other)).toEqual([21, 22, 23, 24]);
  });

  it('rejects with the compile log when NVRTC fails', async () => {
    const error = await device.compile('extern "C" __global__ void broken() { undefined_name = 1; }', { cache: false }).catch((e) => e);
    expect(error).toBeInstanceOf(NvrtcError);
    expect(error.code).toBe(6); // NVRTC_ERROR_COMPILATION
    expect(error.log).toContain('undefined_name');
    expect(error.log).toMatch(/error/);
  });

  it('loads PTX text', async () => {
    const ptx = await compile(ADD_ONE, { arch: device.arch.replace('sm_', 'compute_'), defines: { OFFSET: 1 }, cache: false });
    expect(typeof ptx.image).toBe('string');
    expect(ptx.image as string).toContain('.entry add_one');
    const module = await device.loadModule(ptx.image);
    modules.push(module);
    expect(await runAddOne(module)).toEqual([2, 3, 4, 5]);
  });

  it('loads cubin bytes', async () => {
    const cubin = await compile(ADD_ONE, { arch: device.arch, defines: { OFFSET: 2 }, cache: false });
    expect(cubin.image).toBeInstanceOf(Uint8Array);
    expect([...(cubin.image as Uint8Array).subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    const module = await device.loadModule(cubin.image);
    modules.push(module);
    expect(await runAddOne(module)).toEqual([3, 4, 5, 6]);
  });

  it('rejects bad sources, options and images', async () => {
    await expect(device.compile('' as never)).rejects.toThrow(TypeError);
    await expect(device.compile(ADD_ONE, { arch: 'pentium' })).rejects.toThrow(/`arch`/);
    await expect(device.compile(ADD_ONE, { options: 'fast' as never })).rejects.toThrow(/`options`/);
    expect(() => device.loadModule(new Uint8Array(0))).toThrow(TypeError);
    await expect(device.loadModule('this is not PTX')).rejects.toThrow(/cuModuleLoadData/);
  });

  it('unloads a module only after its launches have finished', async () => {
    const module = await device.compile(ADD_ONE, { defines: { OFFSET: 5 }, cache });
    const s = device.createStream();
    const kernel = module.kernel('add_one', ['ptr', 'u32']);
    const x = s.alloc('i32', 1 << 20);
    s.fill(x, 0);
    for (let i = 0; i < 100; i++) s.launch(kernel, { grid: 4096, block: 256 }, [x, 1 << 20]);
    module.close();
    expect(() => s.launch(kernel, { grid: 1, block: 1 }, [x, 1])).toThrow(/closed Module/);
    const host = device.allocHost('i32', 1 << 20);
    s.copy(host, x);
    await s.synchronized();
    expect(host.data[12345]).toBe(500);
    s.close();
  });
});
