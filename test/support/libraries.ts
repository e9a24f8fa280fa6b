// Data, references and error bounds for the library tests (GEMM, FFT): seeded data of each
// element type, the exact values the device holds, products and transforms computed here in f64,
// and the bounds the tests state.
import { fromBFloat16Bits, fromHalfBits, toBFloat16Bits, toHalfBits, type DeviceArray, type GemmDType, type Stream } from '../../src/index.js';

/** A seeded generator of numbers in [0, 1) (mulberry32): the same data on every run. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Machine epsilon (the gap above 1) of each GEMM type: what its values are rounded to. */
export const EPSILON: Record<GemmDType, number> = { f16: 2 ** -10, bf16: 2 ** -7, f32: 2 ** -23, f64: 2 ** -52 };

/** The type GEMM sums products in: f32 for every type but f64. */
export const SUM_EPSILON = (t: GemmDType) => (t === 'f64' ? EPSILON.f64 : EPSILON.f32);

/** The number stored for `value` in an array of `t` (as the device holds it). */
export function stored(t: GemmDType, value: number): number {
  if (t === 'f16') return fromHalfBits(toHalfBits(value));
  if (t === 'bf16') return fromBFloat16Bits(toBFloat16Bits(value));
  if (t === 'f32') return Math.fround(value);
  return value;
}

function encode(t: GemmDType | 'f32', values: readonly number[]): Uint16Array | Float32Array | Float64Array {
  if (t === 'f16') return Uint16Array.from(values, toHalfBits);
  if (t === 'bf16') return Uint16Array.from(values, toBFloat16Bits);
  if (t === 'f64') return Float64Array.from(values);
  return Float32Array.from(values);
}

function decode(t: GemmDType, data: ArrayLike<number>): number[] {
  if (t === 'f16') return Array.from(data, fromHalfBits);
  if (t === 'bf16') return Array.from(data, fromBFloat16Bits);
  return Array.from(data);
}

/** A device array of `t` holding `values` (rounded to `t`), copied on `stream`. */
export function upload<T extends GemmDType>(stream: Stream, t: T, values: readonly number[]): DeviceArray<T> {
  const host = stream.device.allocHost(t, values.length);
  (host.data as Uint16Array | Float32Array | Float64Array).set(encode(t, values));
  const array = stream.alloc(t, values.length);
  stream.copy(array, host);
  return array;
}

/** What `array` holds once the work enqueued on `stream` so far is done, as numbers. */
export async function download<T extends GemmDType>(stream: Stream, array: DeviceArray<T>): Promise<number[]> {
  const host = stream.device.allocHost(array.dtype, array.length);
  stream.copy(host, array);
  await stream.synchronized();
  const values = decode(array.dtype as GemmDType, host.data as ArrayLike<number>);
  host.close();
  return values;
}

/** `count` values in [-1, 1), rounded to `t`: what the device will hold. */
export function values(t: GemmDType, count: number, seed: number): number[] {
  const next = random(seed);
  return Array.from({ length: count }, () => stored(t, next() * 2 - 1));
}

/** A row-major GEMM's shape, as Blas.gemm takes it. */
export interface Shape {
  m: number;
  n: number;
  k: number;
  transA?: boolean;
  transB?: boolean;
  alpha?: number;
  beta?: number;
  lda?: number;
  ldb?: number;
  ldc?: number;
  batch?: number;
  strideA?: number;
  strideB?: number;
  strideC?: number;
}

/**
 * C = alpha·op(A)·op(B) + beta·C in f64 (row-major, as Blas.gemm), and each element's bound: the
 * sum of k products in a type of epsilon ε errs by at most k·ε·Σ|a||b| (whatever the order, and
 * each f32 product of f32 operands rounded once more: k + 1), alpha and beta add two roundings,
 * and the result's rounding to C's type adds ε_C·|C|. So
 * |C − C_exact| ≤ (k + 3)·ε_sum·(|alpha|·Σ|a||b| + |beta|·|c|) + ε_C·|C_exact|.
 */
export function referenceGemm(shape: Shape, a: number[], b: number[], c: number[], sumEpsilon: number, outEpsilon: number) {
  const { m, n, k, transA = false, transB = false, alpha = 1, beta = 0, batch = 1 } = shape;
  const lda = shape.lda ?? (transA ? m : k), ldb = shape.ldb ?? (transB ? k : n), ldc = shape.ldc ?? n;
  const strideA = shape.strideA ?? (transA ? k : m) * lda, strideB = shape.strideB ?? (transB ? n : k) * ldb, strideC = shape.strideC ?? m * ldc;
  const out = c.slice();
  const bound = c.map(() => 0);
  for (let p = 0; p < batch; p++)
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let sum = 0, magnitude = 0;
        for (let l = 0; l < k; l++) {
          const x = a[p * strideA + (transA ? l * lda + i : i * lda + l)]!;
          const y = b[p * strideB + (transB ? j * ldb + l : l * ldb + j)]!;
          sum += x * y;
          magnitude += Math.abs(x * y);
        }
        const at = p * strideC + i * ldc + j;
        const old = c[at]!;
        out[at] = alpha * sum + (beta === 0 ? 0 : beta * old);
        bound[at] = (k + 3) * sumEpsilon * (Math.abs(alpha) * magnitude + Math.abs(beta) * Math.abs(beta === 0 ? 0 : old)) + outEpsilon * Math.abs(out[at]!);
      }
  return { out, bound };
}

/** The elements of `got` farther from `want` than `bound` allows, as readable lines (empty: none). */
export function outside(got: readonly number[], want: readonly number[], bound: readonly number[], limit = 5): string[] {
  const bad: string[] = [];
  for (let i = 0; i < want.length && bad.length < limit; i++)
    if (!(Math.abs(got[i]! - want[i]!) <= bound[i]!)) bad.push(`[${i}]: got ${got[i]}, want ${want[i]} ± ${bound[i]}`);
  return bad;
}

/**
 * The bound of an FFT's error this suite states: ‖FFT(x) − exact‖₂ ≤ c·log₂(n)·ε·‖exact‖₂ for
 * the algorithms cuFFT and the host device use (c a small constant; log₂ of the power of two
 * that Bluestein's algorithm goes through for other sizes, at most 4n). Taken with c = 8,
 * against each element, it holds for every element.
 */
export function fftBound(n: number, epsilon: number, norm: number): number {
  return 8 * Math.ceil(Math.log2(4 * n)) * epsilon * norm;
}

/** The 2-norm of `values`. */
export function norm(values: readonly number[]): number {
  return Math.sqrt(values.reduce((sum, v) => sum + v * v, 0));
}

/** The DFT of interleaved complex `x` (length n) in f64, forward (sign -1) or inverse (+1). */
export function dft(x: readonly number[], sign: -1 | 1): number[] {
  const n = x.length / 2;
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    let re = 0, im = 0;
    for (let j = 0; j < n; j++) {
      const angle = (sign * 2 * Math.PI * ((j * k) % n)) / n;
      const [c, s] = [Math.cos(angle), Math.sin(angle)];
      re += x[2 * j]! * c - x[2 * j + 1]! * s;
      im += x[2 * j]! * s + x[2 * j + 1]! * c;
    }
    out.push(re, im);
  }
  return out;
}

/** The DFT of interleaved complex `x` of row-major `shape`, along every axis (f64, forward). */
export function dftAxes(x: readonly number[], shape: readonly number[]): number[] {
  let data = x.slice();
  for (let axis = 0; axis < shape.length; axis++) {
    const n = shape[axis]!;
    const inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    const outer = shape.slice(0, axis).reduce((a, b) => a * b, 1);
    const out = data.slice();
    for (let o = 0; o < outer; o++)
      for (let i = 0; i < inner; i++) {
        const line: number[] = [];
        for (let j = 0; j < n; j++) line.push(data[2 * ((o * n + j) * inner + i)]!, data[2 * ((o * n + j) * inner + i) + 1]!);
        const transformed = dft(line, -1);
        for (let j = 0; j < n; j++) [out[2 * ((o * n + j) * inner + i)], out[2 * ((o * n + j) * inner + i) + 1]] = [transformed[2 * j]!, transformed[2 * j + 1]!];
      }
    data = out;
  }
  return data;
}
