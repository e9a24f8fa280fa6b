// The host device's library results against the GPU's, on the same data: GEMM within twice the
// bound referenceGemm states (each backend is within it of the exact product), transforms within
// twice fftBound (each is within it of the exact transform).
import { expect, it } from 'vitest';
import { Device, type GemmDType } from '../../src/index.js';
import { describeGpu } from '../support/gpu.js';
import { EPSILON, SUM_EPSILON, download, fftBound, norm, outside, referenceGemm, upload, values, type Shape } from '../support/libraries.js';

async function gemmOn(device: Device, t: GemmDType, out: GemmDType, shape: Shape, a: number[], b: number[], c: number[]) {
  using s = device.createStream();
  const dc = upload(s, out, c);
  device.blas.gemm(s, upload(s, t, a), upload(s, t, b), dc as never, shape);
  return download(s, dc);
}

async function fftOn(device: Device, kind: 'c2c' | 'r2c' | 'c2r', t: 'f32' | 'f64', shape: number[], batch: number, x: number[], outLength: number) {
  using s = device.createStream();
  const output = s.alloc(t, outLength);
  device.fft[kind](s, upload(s, t, x), output, { shape, batch });
  return download(s, output);
}

describeGpu('GPU libraries against the host device', () => {
  const cases: [GemmDType, GemmDType, Shape][] = [
    ['f32', 'f32', { m: 129, n: 65, k: 257, transB: true }],
    ['f16', 'f16', { m: 64, n: 96, k: 200, transA: true }],
    ['f16', 'f32', { m: 33, n: 31, k: 512, beta: 1 }],
    ['bf16', 'bf16', { m: 50, n: 70, k: 90 }],
    ['bf16', 'f32', { m: 16, n: 16, k: 64, batch: 12 }],
    ['f64', 'f64', { m: 40, n: 30, k: 300, alpha: 0.25, beta: -1 }],
  ];
  for (const [t, out, shape] of cases)
    it(`agree on a ${t} GEMM into ${out} (${shape.m}×${shape.n}×${shape.k}${shape.batch ? ` × ${shape.batch}` : ''})`, async () => {
      const batch = shape.batch ?? 1;
      const [a, b, c] = [values(t, batch * shape.m * shape.k, 1), values(t, batch * shape.k * shape.n, 2), values(out, batch * shape.m * shape.n, 3)];
      const [gpu, host] = await Promise.all([gemmOn(Device.get(0), t, out, shape, a, b, c), gemmOn(Device.host(), t, out, shape, a, b, c)]);
      const { bound } = referenceGemm(shape, a, b, c, SUM_EPSILON(t), EPSILON[out]);
      expect(outside(gpu, host, bound.map((e) => 2 * e))).toEqual([]);
    });

  const transforms: ['c2c' | 'r2c' | 'c2r', 'f32' | 'f64', number[], number][] = [
    ['c2c', 'f32', [4096], 16], ['c2c', 'f64', [1009], 2], ['c2c', 'f32', [32, 48], 3], ['c2c', 'f32', [8, 12, 10], 2],
    ['r2c', 'f32', [4096], 8], ['r2c', 'f64', [30, 64], 2], ['c2r', 'f32', [4096], 8], ['c2r', 'f32', [6, 10, 16], 1],
    // Squares of primes above 61, and products of two such primes, which the host device once
    // factored into a radix larger than its butterfly holds: against cuFFT.
    ['c2c', 'f32', [4489], 2], ['c2c', 'f64', [5041], 1], ['c2c', 'f32', [2, 4489], 1], ['c2c', 'f32', [16129], 1],
    ['c2c', 'f64', [994009], 1], ['c2c', 'f32', [4757], 1], ['r2c', 'f32', [8978], 2], ['c2r', 'f64', [13467], 1],
  ];
  for (const [kind, t, shape, batch] of transforms)
    it(`agree on a ${kind} transform of ${t} data of ${shape.join(' × ')} (× ${batch})`, async () => {
      const points = shape.reduce((p, q) => p * q);
      const half = (points / shape.at(-1)!) * (Math.floor(shape.at(-1)! / 2) + 1);
      const inLength = kind === 'r2c' ? points * batch : 2 * (kind === 'c2c' ? points : half) * batch;
      const outLength = kind === 'c2r' ? points * batch : 2 * (kind === 'c2c' ? points : half) * batch;
      let x = values(t, inLength, 5);
      // A c2r's input must be the half spectrum of real data: take it from the host device's r2c.
      if (kind === 'c2r') x = await fftOn(Device.host(), 'r2c', t, shape, batch, values(t, points * batch, 5), inLength);
      const [gpu, host] = await Promise.all([fftOn(Device.get(0), kind, t, shape, batch, x, outLength), fftOn(Device.host(), kind, t, shape, batch, x, outLength)]);
      const bound = 2 * fftBound(points, EPSILON[t], norm(host));
      expect(outside(gpu, host, host.map(() => bound))).toEqual([]);
    });
});
