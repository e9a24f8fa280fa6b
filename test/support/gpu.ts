// Whether a CUDA device is usable here, and a `describe` that runs only where one is.
import { describe } from 'vitest';
import { Device } from '../../src/index.js';

function detect(): { available: boolean; reason: string; description: string } {
  const info = Device.driverInfo();
  if (!info.available) return { available: false, reason: info.problem, description: '' };
  if (info.deviceCount === 0) return { available: false, reason: 'the driver sees no CUDA device', description: '' };
  const device = Device.default();
  return { available: true, reason: '', description: `${device.name} (${device.arch})` };
}

export const gpu = detect();

/** `describe` for tests that need a CUDA device; the skip names the reason. */
export function describeGpu(name: string, body: () => void): void {
  const title = gpu.available ? name : `${name} (skipped: ${gpu.reason})`;
  describe.skipIf(!gpu.available)(title, body);
}
