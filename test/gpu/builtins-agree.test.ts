// The two backends' built-in kernels agree: bit for bit elementwise, within rounding for sums.
import { expect, it } from 'vitest';
import { Builtins, Device, type BuiltinDType } from '../../src/index.js';
import { describeGpu } from '../support/gpu.js';

const N = 100_000;

async function run(device: Device, t: BuiltinDType, values: number[]) {
  const s = device.createStream();
  const builtins = await Builtins.for(device);
  const host = device.allocHost(t, N);
  host.data.set(values);
  const x = s.alloc(t, N);
  const y = s.alloc(t, N);
  const sum = s.alloc(t, 1);
  s.copy(x, host);
  builtins.iota(s, y, 3, 7);
  builtins.axpy(s, t === 'f32' || t === 'f64' ? 1.5 : 3, x, y);
  builtins.mul(s, y, y, x);
  builtins.fill(s, sum, 0);
  builtins.reduceSum(s, sum, x);
  const out = device.allocHost(t, N);
  const total = device.allocHost(t, 1);
  s.copy(out, y);
  s.copy(total, sum);
  await s.synchronized();
  s.close();
  return { bytes: new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.byteLength).slice(), sum: total.data[0]! };
}

describeGpu('Builtins on both backends', () => {
  for (const t of ['i32', 'u32', 'f32', 'f64'] as const) {
    it(`agree for ${t}`, async () => {
      const values = Array.from({ length: N }, (_, i) => (t === 'u32' ? i * 977 : t === 'i32' ? i * -977 : Math.sin(i) * 100));
      const [cuda, host] = await Promise.all([run(Device.get(0), t, values), run(Device.host(), t, values)]);
      expect(Buffer.compare(cuda.bytes, host.bytes)).toBe(0);
      if (t === 'i32' || t === 'u32') expect(cuda.sum).toBe(host.sum);
      else expect(Math.abs(cuda.sum - host.sum)).toBeLessThanOrEqual(N * (t === 'f32' ? 2 ** -24 : 2 ** -53) * values.reduce((a, v) => a + Math.abs(v), 0));
    });
  }
});
