// Fft on each backend: transforms against DFTs computed here in f64, forward then inverse giving
// the input back, and sums of sines peaking at their bins, within the bound fftBound states:
// 8·⌈log₂(4n)⌉·ε·‖x‖₂ per element (ε of the data's type; ‖x‖₂ the exact result's norm).
import { expect, it } from 'vitest';
import { Fft, MAX_PLANS } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { streamsPerTest } from '../support/streams.js';
import { EPSILON, dft, dftAxes, download, fftBound, norm, random, upload } from '../support/libraries.js';

const complexSignal = (n: number, seed: number) => {
  const next = random(seed);
  return Array.from({ length: 2 * n }, () => Math.fround(next() * 2 - 1));
};
const realSignal = (n: number, seed: number) => complexSignal(n, seed).slice(0, n);
const maxError = (got: readonly number[], want: readonly number[]) => Math.max(...want.map((w, i) => Math.abs(got[i]! - w)));

describeBackends('Fft', (getDevice) => {
  const stream = streamsPerTest(getDevice);

  // Powers of two, sizes of small primes, and primes that take Bluestein's algorithm.
  for (const n of [1, 2, 8, 12, 60, 97, 127, 1024, 1009])
    it(`transforms ${n} complex points as the DFT does`, async () => {
      const s = stream();
      const x = complexSignal(n, n);
      const [input, output] = [upload(s, 'f32', x), s.alloc('f32', 2 * n)];
      s.device.fft.c2c(s, input, output, { shape: n });
      const want = dft(x, -1);
      expect(maxError(await download(s, output), want)).toBeLessThanOrEqual(fftBound(n, EPSILON.f32, norm(want)));
    });

  for (const t of ['f32', 'f64'] as const)
    for (const shape of [[4096], [48, 40], [8, 12, 10]])
      it(`gives back ${t} data of ${shape.join(' × ')} (× 3) after forward and inverse c2c, divided by the points`, async () => {
        const s = stream();
        const points = shape.reduce((a, b) => a * b);
        const x = complexSignal(points * 3, 7);
        const data = upload(s, t, x);
        const spectrum = s.alloc(t, x.length);
        s.device.fft.c2c(s, data, spectrum, { shape, batch: 3 });
        s.device.fft.c2c(s, spectrum, spectrum, { shape, batch: 3, direction: 'inverse' }); // in place
        const back = (await download(s, spectrum)).map((v) => v / points);
        expect(maxError(back, x)).toBeLessThanOrEqual(fftBound(points, EPSILON[t], norm(x)));
      });

  for (const t of ['f32', 'f64'] as const)
    for (const shape of [[4096], [1000], [30, 64], [6, 10, 16], [7, 9]])
      it(`gives back real ${t} data of ${shape.join(' × ')} (× 2) after r2c and c2r`, async () => {
        const s = stream();
        const points = shape.reduce((a, b) => a * b);
        const last = shape.at(-1)!;
        const half = (points / last) * (Math.floor(last / 2) + 1);
        const x = realSignal(points * 2, 11);
        const spectrum = s.alloc(t, 2 * half * 2);
        const back = s.alloc(t, x.length);
        s.device.fft.r2c(s, upload(s, t, x), spectrum, { shape, batch: 2 });
        s.device.fft.c2r(s, spectrum, back, { shape, batch: 2 });
        const got = (await download(s, back)).map((v) => v / points);
        expect(maxError(got, x)).toBeLessThanOrEqual(fftBound(points, EPSILON[t], norm(x)));
      });

  for (const shape of [[6, 10], [4, 6, 5]])
    it(`transforms ${shape.join(' × ')} complex points as the DFT along each axis does, and real ones as its first halves`, async () => {
      const s = stream();
      const points = shape.reduce((a, b) => a * b);
      const last = shape.at(-1)!;
      const half = Math.floor(last / 2) + 1;
      const x = complexSignal(points, 21);
      const [complexOut, realOut] = [s.alloc('f32', 2 * points), s.alloc('f32', 2 * (points / last) * half)];
      s.device.fft.c2c(s, upload(s, 'f32', x), complexOut, { shape });
      const real = x.filter((_, i) => i % 2 === 0);
      s.device.fft.r2c(s, upload(s, 'f32', real), realOut, { shape });
      const want = dftAxes(x, shape);
      expect(maxError(await download(s, complexOut), want)).toBeLessThanOrEqual(fftBound(points, EPSILON.f32, norm(want)));
      const full = dftAxes(real.flatMap((v) => [v, 0]), shape);
      const halves = Array.from({ length: points / last }, (_, row) => full.slice(2 * row * last, 2 * (row * last + half))).flat();
      expect(maxError(await download(s, realOut), halves)).toBeLessThanOrEqual(fftBound(points, EPSILON.f32, norm(full)));
    });

  it('gives the first n/2 + 1 values of the DFT for real data', async () => {
    const s = stream();
    const n = 90;
    const x = realSignal(n, 3);
    const spectrum = s.alloc('f32', 2 * (n / 2 + 1));
    s.device.fft.r2c(s, upload(s, 'f32', x), spectrum, { shape: n });
    const want = dft(x.flatMap((v) => [v, 0]), -1).slice(0, 2 * (n / 2 + 1));
    expect(maxError(await download(s, spectrum), want)).toBeLessThanOrEqual(fftBound(n, EPSILON.f32, norm(want)));
  });

  it('puts the peaks of a sum of sines at their bins, in every block of a batch', async () => {
    const s = stream();
    const [n, blocks] = [4096, 8];
    // Block b: sines of 2b + 100 and 3b + 1000 cycles per block, amplitudes 1 and 0.5.
    const x = Array.from({ length: n * blocks }, (_, i) => {
      const [b, t] = [Math.floor(i / n), (i % n) / n];
      return Math.sin(2 * Math.PI * (2 * b + 100) * t) + 0.5 * Math.sin(2 * Math.PI * (3 * b + 1000) * t);
    });
    const half = n / 2 + 1;
    const spectrum = s.alloc('f32', blocks * half * 2);
    s.device.fft.r2c(s, upload(s, 'f32', x), spectrum, { shape: n, batch: blocks });
    const values = await download(s, spectrum);
    for (let b = 0; b < blocks; b++) {
      const magnitude = Array.from({ length: half }, (_, k) => Math.hypot(values[2 * (b * half + k)]!, values[2 * (b * half + k) + 1]!));
      const peaks = magnitude.map((m, k) => [m, k] as const).sort((p, q) => q[0] - p[0]).slice(0, 2).map(([, k]) => k);
      expect(peaks).toEqual([2 * b + 100, 3 * b + 1000]);
      // A sine of amplitude A puts A·n/2 at its bin; every other bin holds rounding only.
      const bound = fftBound(n, EPSILON.f32, norm(x.slice(b * n, (b + 1) * n)) * Math.sqrt(n));
      expect(magnitude[2 * b + 100]).toBeCloseTo(n / 2, -Math.log10(bound) | 0);
      expect(Math.max(...magnitude.filter((_, k) => k !== peaks[0] && k !== peaks[1]))).toBeLessThanOrEqual(bound);
    }
  });

  it(`keeps at most ${MAX_PLANS} plans, and a shape whose plan left the cache still transforms right`, async () => {
    const s = stream();
    const fft = s.device.fft;
    fft.clearPlans();
    const first = complexSignal(5, 1);
    const run = async (n: number, x = complexSignal(n, n)) => {
      const out = s.alloc('f32', 2 * n);
      fft.c2c(s, upload(s, 'f32', x), out, { shape: n });
      return { got: await download(s, out), want: dft(x, -1) };
    };
    await run(5, first);
    for (let n = 6; n < 6 + MAX_PLANS + 4; n++) {
      await run(n);
      expect(fft.cachedPlans).toBeLessThanOrEqual(MAX_PLANS);
    }
    const again = await run(5, first);
    expect(maxError(again.got, again.want)).toBeLessThanOrEqual(fftBound(5, EPSILON.f32, norm(again.want)));
    expect(fft.cachedPlans).toBe(MAX_PLANS);
    fft.clearPlans();
    expect(fft.cachedPlans).toBe(0);
  });

  it('is the same object as Fft.for(device)', () => {
    expect(getDevice().fft).toBe(Fft.for(getDevice()));
  });
});
