// A block reduction whose block size is a compile-time constant, specialized by each launch's
// block, on three streams at once; a second process finds the three compiles in the disk cache.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeGpu } from '../support/gpu.js';

const script = String.raw`
import { Device } from './dist/src/index.js';
const device = Device.get(0);
const template = device.template(${'`'}
extern "C" __global__ void block_sum(const float* in, float* out, unsigned n) {
  __shared__ float scratch[BLOCK_THREADS];
  unsigned t = threadIdx.x;
  float s = 0;
  for (unsigned i = blockIdx.x * BLOCK_THREADS + t; i < n; i += gridDim.x * BLOCK_THREADS) s += in[i];
  scratch[t] = s;
  __syncthreads();
  for (unsigned stride = BLOCK_THREADS / 2; stride > 0; stride >>= 1) {
    if (t < stride) scratch[t] += scratch[t + stride];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, scratch[0]);
}${'`'}, { cache: process.argv[1] });
const sum = template.kernel('block_sum', ['ptr<f32>', 'ptr<f32>', 'u32'], {
  specialize: (launch) => ({ BLOCK_THREADS: launch.block[0] }),
});
const n = 1 << 16;
const data = device.allocHost('f32', n);
for (let i = 0; i < n; i++) data.data[i] = i % 7;
const expected = data.data.reduce((a, b) => a + b, 0);
const blocks = [128, 256, 512];
const streams = blocks.map(() => device.createStream());
const results = blocks.map(() => device.allocHost('f32', 1));
streams.forEach((s, i) => {
  const input = s.alloc('f32', n);
  const out = s.alloc('f32', 1);
  s.copy(input, data);
  s.fill(out, 0);
  s.launch(sum, { grid: 64, block: blocks[i] }, [input, out, n]);
  s.copy(results[i], out);
  input.close(); // freed behind the work, in stream order
  out.close();
});
await Promise.all(streams.map((s) => s.synchronized()));
console.log(JSON.stringify({
  sums: results.map((r) => r.data[0]),
  expected,
  compiles: sum.specializations().map((s) => [s.defines.BLOCK_THREADS, s.fromCache]).sort((a, b) => a[0] - b[0]),
}));
streams.forEach((s) => s.close());
template.close();
`;

describeGpu('a template specialized by the block size', () => {
  it('sums exactly with blocks of 128, 256 and 512 on three streams, compiles three times, and a second process finds them cached', () => {
    const cache = mkdtempSync(join(tmpdir(), 'rxcuda-template-'));
    const run = () => {
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, cache], { encoding: 'utf8', cwd: new URL('../..', import.meta.url).pathname });
      return JSON.parse(out.trim().split('\n').at(-1)!) as { sums: number[]; expected: number; compiles: [number, boolean][] };
    };
    const first = run();
    expect(first.sums).toEqual([first.expected, first.expected, first.expected]);
    expect(first.compiles).toEqual([[128, false], [256, false], [512, false]]);
    const second = run();
    expect(second.sums).toEqual([second.expected, second.expected, second.expected]);
    expect(second.compiles).toEqual([[128, true], [256, true], [512, true]]);
  });
});
