// A source that sets a graph condition from device code (cudaGraphSetConditional) is compiled as
// relocatable device code, and a GPU links it with the CUDA device runtime, libcudadevrt.a, before
// it loads. The host device compiles it the same way and links nothing.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Device } from '../../src/index.js';
import { programOptions } from '../../src/core/compiler/program.js';
import { addon } from '../../src/core/native/addon.js';
import { describeWithTool } from '../support/tools.js';

const SOURCE = String.raw`
extern "C" __global__ void decide(cudaGraphConditionalHandle handle, const int* flag) {
  cudaGraphSetConditional(handle, *flag != 0);
}
`;

describe('programOptions', () => {
  it('adds -rdc=true to the options of a source that sets a graph condition, and says it needs the device runtime', () => {
    const { flags, deviceRuntime } = programOptions(SOURCE, 'sm_90', { options: ['--use_fast_math'] });
    expect(flags).toContain('-rdc=true');
    expect(deviceRuntime).toBe(true);
  });

  it("keeps the user's own choice of relocatable code, and adds nothing to other sources", () => {
    expect(programOptions(SOURCE, 'sm_90', { options: ['--relocatable-device-code=true'] }).flags.filter((f) => /rdc|relocatable/.test(f))).toEqual(['--relocatable-device-code=true']);
    expect(programOptions('extern "C" __global__ void k() {}', 'sm_90', {})).toMatchObject({ deviceRuntime: false });
    expect(programOptions('extern "C" __global__ void k() {}', 'sm_90', {}).flags).not.toContain('-rdc=true');
  });
});

describe('deviceRuntimeLibrary', () => {
  const standard = '/usr/local/cuda/lib64/libcudadevrt.a';
  const note = existsSync(standard) ? '' : ` (skipped: ${standard} is absent here)`;
  it.skipIf(note !== '')(`finds libcudadevrt.a where the CUDA toolkit keeps it${note}`, () => {
    const found = addon.deviceRuntimeLibrary();
    expect(found).toMatch(/\/libcudadevrt\.a$/);
    expect(existsSync(found!)).toBe(true);
    expect(addon.deviceRuntimePlaces()).toContain('/usr/local/cuda/lib64');
    // Without NVRTC and CUDA_PATH to look in first, the toolkit's own place is the one.
    if (!Device.driverInfo().nvrtc.available && !process.env.CUDA_PATH) expect(found).toBe(standard);
  });
});

describeWithTool('nvcc', 'a source that sets a graph condition, on the host device', () => {
  const cache = mkdtempSync(join(tmpdir(), 'rxcuda-device-runtime-'));
  afterAll(() => rmSync(cache, { recursive: true, force: true }));
  const device = Device.host();

  it('compiles, and its kernel is checked against the relocatable code', async () => {
    const module = await device.compile(SOURCE, { cache });
    const cpu = () => {};
    expect(module.kernel('decide', ['u64', 'ptr<i32>'], { cpu }).name).toBe('decide');
    expect(() => module.kernel('decide', ['u32', 'ptr<i32>'], { cpu })).toThrow(/^Expected `signature` to be 2 parameters of 8, 8 bytes/);
  });
});
