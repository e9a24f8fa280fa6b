// Fft over sizes whose prime factors are large: p² for every prime 61 < p < 1000 (a radix of its
// own once wrote past the host device's butterfly), a seeded sample of products p·q, and shapes
// with such a dimension. Oracles, for f32 data (ε = 2⁻²³) and B(n, v) = fftBound(n, ε, v) =
// 8·⌈log₂(4n)⌉·ε·v, the bound per element of a transform whose exact result has the norm v:
// - up to 4096 points, the DFT computed here in f64: |X − DFT| ≤ B(n, ‖DFT‖₂) per element;
// - above, Parseval's identity: ‖X‖₂² within 2·B(n, 1) of n·‖x‖₂² relatively; X₀ = Σ xⱼ and
//   four seeded bins Xₖ = Σ xⱼ·e^−2πi jk/n, summed here in f64, each within B(n, √n·‖x‖₂);
// - and up to 2¹⁸ points a round trip: the inverse of the forward transform, over n, within
//   2·B(n, ‖x‖₂) of x per element. Larger sizes (p > 512) are transformed forward only.
// Budget: this file takes about 25 s of CPU on the host device (most of it the squares, of 4489
// to 994 009 points), whose long sizes take a four-step transform through Bluestein's
// algorithm on each factor; arrays are made once, for the largest size, and reused.
import { afterAll, expect, it } from 'vitest';
import type { DeviceArray, HostArray, Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { streamsPerTest } from '../support/streams.js';
import { EPSILON, dftAxes, fftBound, random } from '../support/libraries.js';

const EPS = EPSILON.f32;
const DIRECT_UP_TO = 4096;
const ROUND_TRIP_UP_TO = 1 << 18;
const LARGEST = 997 * 997;

function primesBelow(limit: number): number[] {
  const composite = new Uint8Array(limit);
  const primes: number[] = [];
  for (let p = 2; p < limit; p++) {
    if (composite[p]) continue;
    primes.push(p);
    for (let q = p * p; q < limit; q += p) composite[q] = 1;
  }
  return primes;
}

const PRIMES = primesBelow(1000);
const LARGE = PRIMES.filter((p) => p > 61);

/** 24 products p·q of a prime above 61 and any prime below 1000, from a fixed seed. */
function products(): number[] {
  const next = random(4757);
  const sizes = new Set([67 * 71]);
  while (sizes.size < 24) sizes.add(LARGE[Math.floor(next() * LARGE.length)]! * PRIMES[Math.floor(next() * PRIMES.length)]!);
  return [...sizes];
}

function squaredNorm(x: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += x[i]! * x[i]!;
  return sum;
}

/**
 * Xₖ = Σ xⱼ·e^−2πi jk/n of interleaved `x`, in f64: the root is stepped by multiplication and
 * set exactly every 1024 points, so that its drift (about 1024·2⁻⁵³) stays far below f32's ε.
 */
function bin(x: Float32Array, n: number, k: number): [number, number] {
  const angle = (t: number) => (-2 * Math.PI * t) / n;
  const [stepRe, stepIm] = [Math.cos(angle(k)), Math.sin(angle(k))];
  let [re, im, wRe, wIm] = [0, 0, 1, 0];
  for (let j = 0; j < n; j++) {
    if (j % 1024 === 0) [wRe, wIm] = [Math.cos(angle((j * k) % n)), Math.sin(angle((j * k) % n))];
    const [a, b] = [x[2 * j]!, x[2 * j + 1]!];
    re += a * wRe - b * wIm;
    im += a * wIm + b * wRe;
    [wRe, wIm] = [wRe * stepRe - wIm * stepIm, wRe * stepIm + wIm * stepRe];
  }
  return [re, im];
}

/** Arrays for transforms up to LARGEST points, made once: device input and output, a host copy, and the signal. */
interface Buffers {
  readonly input: DeviceArray<'f32'>;
  readonly output: DeviceArray<'f32'>;
  readonly host: HostArray<'f32'>;
  readonly x: Float32Array;
}

describeBackends('Fft sizes with large prime factors', (getDevice) => {
  const stream = streamsPerTest(getDevice);

  let buffers: Buffers | undefined;
  afterAll(() => {
    for (const array of [buffers?.input, buffers?.output, buffers?.host]) array?.close();
  });
  function buffersOn(s: Stream): Buffers {
    buffers ??= { input: s.alloc('f32', 2 * LARGEST), output: s.alloc('f32', 2 * LARGEST), host: s.device.allocHost('f32', 2 * LARGEST), x: new Float32Array(2 * LARGEST) };
    return buffers;
  }

  /** `array`'s first `length` values once the work enqueued on `s` is done (a view of the host copy). */
  async function read(s: Stream, array: DeviceArray<'f32'>, length: number, into: HostArray<'f32'>): Promise<Float32Array> {
    s.copy(into.subarray(0, length), array.subarray(0, length));
    await s.synchronized();
    return into.data.subarray(0, length);
  }

  /** Transforms a seeded signal of `shape` by the oracles above; their complaints, empty when it agrees. */
  async function check(s: Stream, shape: readonly number[], seed: number): Promise<string[]> {
    const n = shape.reduce((a, b) => a * b, 1);
    const { input, output, host } = buffersOn(s);
    const next = random(seed);
    const x = buffersOn(s).x.subarray(0, 2 * n);
    for (let i = 0; i < x.length; i++) x[i] = Math.fround(next() * 2 - 1);
    host.data.set(x);
    s.copy(input.subarray(0, 2 * n), host.subarray(0, 2 * n));
    const name = `[${shape.join(', ')}]`;
    const problems: string[] = [];
    s.device.fft.c2c(s, input, output, { shape: [...shape] });
    const got = await read(s, output, 2 * n, host);
    if (n <= DIRECT_UP_TO) {
      const want = dftAxes([...x], shape);
      const bound = fftBound(n, EPS, Math.sqrt(squaredNorm(want)));
      for (let i = 0; i < want.length && problems.length < 3; i++)
        if (!(Math.abs(got[i]! - want[i]!) <= bound)) problems.push(`${name}: X[${i}] is ${got[i]}, the DFT ${want[i]} ± ${bound}`);
      return problems;
    }
    const energy = squaredNorm(x);
    const parseval = squaredNorm(got) / (n * energy) - 1;
    if (!(Math.abs(parseval) <= 2 * fftBound(n, EPS, 1))) problems.push(`${name}: ‖X‖² is n·‖x‖² × (1 + ${parseval}), beyond ${2 * fftBound(n, EPS, 1)}`);
    // Bins of the flattened transform: for a shape, the 1-D DFT's bins are those of the last axis
    // only when the others are 1, so the bins are checked on 1-D sizes and X₀ on every shape.
    const bins = shape.filter((d) => d > 1).length === 1 ? [0, 1 + Math.floor(next() * (n - 1)), Math.floor(next() * n), n - 1, Math.floor(n / 2)] : [0];
    const binBound = fftBound(n, EPS, Math.sqrt(n * energy));
    for (const k of bins) {
      const [re, im] = bin(x, n, k);
      if (!(Math.hypot(got[2 * k]! - re, got[2 * k + 1]! - im) <= binBound)) problems.push(`${name}: X${k} is ${got[2 * k]} + ${got[2 * k + 1]}i, the sum ${re} + ${im}i ± ${binBound}`);
    }
    if (n > ROUND_TRIP_UP_TO) return problems;
    s.device.fft.c2c(s, output, input, { shape: [...shape], direction: 'inverse' });
    const back = await read(s, input, 2 * n, host);
    const roundTrip = 2 * fftBound(n, EPS, Math.sqrt(energy));
    for (let i = 0; i < x.length && problems.length < 3; i++)
      if (!(Math.abs(back[i]! / n - x[i]!) <= roundTrip)) problems.push(`${name}: the round trip gives ${back[i]! / n} for ${x[i]} ± ${roundTrip} at ${i}`);
    return problems;
  }

  it('transforms p² points for every prime 61 < p < 1000', { timeout: 300_000 }, async () => {
    const s = stream();
    const problems: string[] = [];
    for (const p of LARGE) problems.push(...(await check(s, [p * p], p)));
    s.device.fft.clearPlans();
    expect(LARGE.length).toBe(150);
    expect(problems).toEqual([]);
  });

  it('transforms a seeded sample of p·q points, a prime above 61 times a prime below 1000', { timeout: 60_000 }, async () => {
    const s = stream();
    const sizes = products();
    const problems: string[] = [];
    for (const n of sizes) problems.push(...(await check(s, [n], n)));
    s.device.fft.clearPlans();
    expect(sizes.filter((n) => n <= DIRECT_UP_TO).length).toBeGreaterThan(0); // some against the DFT itself
    expect(problems).toEqual([]);
  });

  it('transforms shapes with a dimension of p² or p·q points', { timeout: 60_000 }, async () => {
    const s = stream();
    const shapes = [[2, 4489], [4489, 2], [2, 5041], [3, 16129], [67, 67], [2, 67, 71], [61, 67], [2, 3, 4757], [8978, 1]];
    const problems: string[] = [];
    for (const [i, shape] of shapes.entries()) problems.push(...(await check(s, shape, 100 + i)));
    expect(problems).toEqual([]);
  });

  it('transforms real data of p² points to the half spectrum and back', async () => {
    const s = stream();
    const problems: string[] = [];
    const { input, output, host, x: signal } = buffersOn(s);
    for (const n of [4489, 5041, 16129]) {
      const next = random(n);
      const x = signal.subarray(0, n);
      for (let i = 0; i < n; i++) x[i] = Math.fround(next() * 2 - 1);
      const half = Math.floor(n / 2) + 1;
      host.data.set(x);
      s.copy(input.subarray(0, n), host.subarray(0, n));
      s.device.fft.r2c(s, input.subarray(0, n), output.subarray(0, 2 * half), { shape: n });
      const got = (await read(s, output, 2 * half, host)).slice();
      s.device.fft.c2r(s, output.subarray(0, 2 * half), input.subarray(0, n), { shape: n });
      const returned = await read(s, input, n, host);
      const energy = squaredNorm(x);
      const bound = 2 * fftBound(n, EPS, Math.sqrt(energy));
      for (let i = 0; i < n && problems.length < 3; i++)
        if (!(Math.abs(returned[i]! / n - x[i]!) <= bound)) problems.push(`${n}: c2r(r2c(x))/n gives ${returned[i]! / n} for ${x[i]} ± ${bound} at ${i}`);
      // Parseval over the half spectrum: the bins 1 … ⌈n/2⌉ − 1 stand for their conjugates too.
      let spectral = got[0]! ** 2 + got[1]! ** 2;
      for (let k = 1; k < half; k++) spectral += (k === n / 2 ? 1 : 2) * (got[2 * k]! ** 2 + got[2 * k + 1]! ** 2);
      const parseval = spectral / (n * energy) - 1;
      if (!(Math.abs(parseval) <= 2 * fftBound(n, EPS, 1))) problems.push(`${n}: the half spectrum's energy is n·‖x‖² × (1 + ${parseval})`);
    }
    expect(problems).toEqual([]);
  });
});
