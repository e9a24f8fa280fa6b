// The behavioural suite runs once per backend: the host device everywhere, CUDA where a device is.
import { describe } from 'vitest';
import { Device } from '../../src/index.js';
import { gpu } from './gpu.js';

const backends = [
  { name: 'host', available: true, reason: '', device: () => Device.host() },
  { name: 'cuda', available: gpu.available, reason: gpu.reason, device: () => Device.get(0) },
];

/** `describe` once per backend; `device()` gives that backend's device inside the tests. */
export function describeBackends(name: string, body: (device: () => Device, backend: 'host' | 'cuda') => void): void {
  for (const backend of backends) {
    const title = `${name} [${backend.name}]${backend.available ? '' : ` (skipped: ${backend.reason})`}`;
    describe.skipIf(!backend.available)(title, () => body(backend.device, backend.name as 'host' | 'cuda'));
  }
}
