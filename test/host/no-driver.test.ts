// What a user sees where no CUDA driver or device can be used: import works, `rxcuda info`
// explains, and using a device throws a CudaError that says what is missing.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CudaError, Device } from '../../src/index.js';
import { gpu } from '../support/gpu.js';

const cli = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

describe.skipIf(gpu.available)('Device without a usable driver', () => {
  it('reports no devices and why, and falls back to the host device', () => {
    expect(Device.count()).toBe(0);
    expect(Device.all()).toEqual([Device.host()]);
    expect(Device.driverInfo().problem).toMatch(/libcuda\.so\.1|driver|device/);
  });

  it('throws a CudaError naming the problem when a CUDA device is asked for', () => {
    let error: unknown;
    try {
      Device.get(0);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CudaError);
    expect((error as CudaError).name).toMatch(/^CUDA_ERROR_/);
    expect((error as CudaError).message).toBe(Device.driverInfo().problem);
  });

  it('falls back to the host device by default', () => {
    expect(Device.default()).toBe(Device.host());
    expect(Device.default().kind).toBe('host');
    expect(String(Device.default())).toBe('the host device');
  });
});

describe('rxcuda info', () => {
  it('exits 0 and lists the devices or says why there are none', () => {
    const out = execFileSync(process.execPath, [cli, 'info'], { encoding: 'utf8' });
    expect(out).toMatch(/^rxcuda \S+ on Node\.js v\d+/);
    if (gpu.available) expect(out).toMatch(/^\[0\] .+: compute \d+\.\d+ \(sm_\d+\)/m);
    else expect(out).toContain(`No CUDA device: ${Device.driverInfo().problem}`);
  });

  it('prints JSON with --json', () => {
    const out = JSON.parse(execFileSync(process.execPath, [cli, 'info', '--json'], { encoding: 'utf8' }));
    expect(out.driver.available).toBe(gpu.available);
    expect(out.devices).toHaveLength(Device.count());
  });
});

describe('the addon', () => {
  it('loads in a worker thread, with its own state', async () => {
    const entry = new URL('../../dist/src/index.js', import.meta.url).href;
    const worker = new Worker(
      `import(${JSON.stringify(entry)}).then((m) => require('node:worker_threads').parentPort.postMessage(m.Device.count()))`,
      { eval: true },
    );
    const count = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(count).toBe(Device.count());
  });
});
