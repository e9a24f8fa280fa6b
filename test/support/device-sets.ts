// Multi-device suites run on 2 and 4 host devices everywhere, and on every CUDA device where a
// machine has two or more.
import { describe } from 'vitest';
import { Device } from '../../src/index.js';
import { gpu } from './gpu.js';

const cudaCount = gpu.available ? Device.count() : 0;

const sets = [
  { name: '2 host devices', available: true, reason: '', devices: () => Device.hosts(2) },
  { name: '4 host devices', available: true, reason: '', devices: () => Device.hosts(4) },
  {
    name: `${cudaCount} CUDA devices`,
    available: cudaCount >= 2,
    reason: gpu.available ? `needs two CUDA devices, this machine has ${cudaCount}` : gpu.reason,
    devices: () => Device.all(),
  },
];

/** `describe` once per set of devices; `devices()` gives the set inside the tests. */
export function describeDeviceSets(name: string, body: (devices: () => Device[], backend: 'host' | 'cuda') => void): void {
  for (const set of sets) {
    const title = `${name} [${set.name}]${set.available ? '' : ` (skipped: ${set.reason})`}`;
    describe.skipIf(!set.available)(title, () => body(set.devices, set.devices === sets[2]!.devices ? 'cuda' : 'host'));
  }
}
