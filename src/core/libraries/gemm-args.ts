// GEMM's arguments: checked against the arrays before anything is enqueued, then written into a
// block as cuBLAS takes them. rxcuda's matrices are row-major; cuBLAS's are column-major, and a
// row-major matrix read column-major is its transpose, so C = op(A)·op(B) is asked of cuBLAS as
// Cᵀ = op(B)ᵀ·op(A)ᵀ: the operands swapped, m and n swapped, each keeping its own transpose flag.
import { isInstance, rangeError, received, typeError } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import { DeviceArray } from '../memory/memory.js';
import type { Device } from '../device/device.js';
import { Stream } from '../device/stream.js';
import { ELEMENT, G, writeAddress } from './native.js';

/** Element types GEMM takes: f16 and bf16 (summed in f32), f32, and f64. */
export type GemmDType = 'f16' | 'bf16' | 'f32' | 'f64';

/** The element types C may have for operands of type D: D, or f32 for f16 and bf16 operands. */
export type GemmOutput<D extends GemmDType> = D extends 'f16' | 'bf16' ? D | 'f32' : D;

/**
 * The shape and scalars of a GEMM, C = alpha·op(A)·op(B) + beta·C, on row-major matrices: op(A)
 * is m × k, op(B) is k × n and C is m × n. A is stored m × k (k × m with `transA`), B k × n
 * (n × k with `transB`), each row after the last at its leading dimension.
 */
export interface GemmOptions {
  /** Rows of op(A) and of C, 1..2³¹−1. */
  readonly m: number;
  /** Columns of op(B) and of C, 1..2³¹−1. */
  readonly n: number;
  /** Columns of op(A), rows of op(B): the length of each sum, 1..2³¹−1. */
  readonly k: number;
  /** A is stored transposed (k × m). @default false */
  readonly transA?: boolean;
  /** B is stored transposed (n × k). @default false */
  readonly transB?: boolean;
  /** The product's factor. @default 1 */
  readonly alpha?: number;
  /** C's factor; with 0, C is only written (what it held, NaN included, does not matter). @default 0 */
  readonly beta?: number;
  /** Elements from one row of A to the next, at least its columns. @default its columns */
  readonly lda?: number;
  /** Elements from one row of B to the next, at least its columns. @default its columns */
  readonly ldb?: number;
  /** Elements from one row of C to the next, at least n. @default n */
  readonly ldc?: number;
  /** Independent products, one after another (a strided batch). @default 1 */
  readonly batch?: number;
  /** Elements from one batch's A to the next; 0 uses one A for every batch. @default rows × lda */
  readonly strideA?: number;
  /** Elements from one batch's B to the next; 0 uses one B for every batch. @default rows × ldb */
  readonly strideB?: number;
  /** Elements from one batch's C to the next, at least what one C spans. @default m × ldc */
  readonly strideC?: number;
}

const INT_MAX = 2 ** 31 - 1;
const TYPES = ['f16', 'bf16', 'f32', 'f64'] as const;

function int(name: string, value: unknown, min: number, max = INT_MAX): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) typeError(name, `an integer in ${min}..${max}`, value);
  if (value < min || value > max) rangeError(name, `an integer in ${min}..${max}`, value);
  return value;
}

function finite(name: string, value: unknown): number {
  if (typeof value !== 'number') typeError(name, 'a finite number', value);
  if (!Number.isFinite(value)) rangeError(name, 'a finite number', value);
  return value;
}

function flag(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') typeError(name, 'a boolean', value);
  return value;
}

/** "f16, bf16, f32 or f64" */
function either(dtypes: readonly string[]): string {
  return dtypes.length === 1 ? dtypes[0]! : `${dtypes.slice(0, -1).join(', ')} or ${dtypes.at(-1)}`;
}

/** Checks one operand: an open DeviceArray of `device`, of one of `dtypes` (`as` says why). */
function operand(name: string, value: unknown, device: Device, dtypes: readonly string[], as: string): DeviceArray {
  if (!isInstance(value, DeviceArray)) typeError(name, `a DeviceArray of ${either(dtypes)}${as}`, value);
  if (value.closed) typeError(name, 'an open DeviceArray', received('a closed DeviceArray'));
  if (!dtypes.includes(value.dtype)) typeError(name, `a DeviceArray of ${either(dtypes)}${as}`, received(`a DeviceArray of ${value.dtype}`));
  if (value.device !== device) rangeError(name, `memory of ${device}`, received(`memory of ${value.device}`));
  return value;
}

/** Throws unless a matrix of `rows` × `cols` (row stride `ld`), `batch` times at `stride`, fits `array`. */
function fits(name: string, array: DeviceArray, what: string, rows: number, cols: number, ld: number, batch: number, stride: number): void {
  const needed = (batch - 1) * stride + (rows - 1) * ld + cols;
  if (array.length < needed)
    rangeError(name, `at least ${needed} elements (${what}: ${rows} × ${cols}${ld === cols ? '' : `, rows ${ld} apart`}${batch > 1 ? `, ${batch} of them ${stride} apart` : ''})`, received(`a DeviceArray of ${array.length}`));
}

/** The first byte's address as a number (exact: addresses are below 2^53), without BigInt work. */
function start(array: DeviceArray): number {
  return array.hi * 4294967296 + array.lo;
}

function apart(name: string, a: DeviceArray, other: string, b: DeviceArray): void {
  const [x, y] = [start(a), start(b)];
  if (x < y + b.byteLength && y < x + a.byteLength) rangeError(name, `memory apart from \`${other}\``, received('memory that overlaps it'));
}

/** What B may be for A of each type (A's), and what C may be. */
const SAME: Record<GemmDType, readonly string[]> = { f16: ['f16'], bf16: ['bf16'], f32: ['f32'], f64: ['f64'] };
const OUTPUTS: Record<GemmDType, readonly string[]> = { f16: ['f16', 'f32'], bf16: ['bf16', 'f32'], f32: ['f32'], f64: ['f64'] };

/**
 * @internal Checks a GEMM on `stream` of `device` and writes it into `block` (all but the stream
 * and the workspace). Nothing is enqueued.
 * @throws TypeError/RangeError naming the bad argument.
 */
export function checkGemm(device: Device, stream: unknown, a: unknown, b: unknown, c: unknown, options: unknown, block: Float64Array): void {
  if (!isInstance(stream, Stream)) typeError('stream', 'a Stream', stream);
  if (stream.device !== device) rangeError('stream', `a stream of ${device}`, received(`a stream of ${stream.device}`));
  const A = operand('a', a, device, TYPES, '');
  const type = A.dtype as GemmDType;
  const B = operand('b', b, device, SAME[type], ', as `a` is');
  const half = type === 'f16' || type === 'bf16';
  const C = operand('c', c, device, OUTPUTS[type], half ? ' (for `a` of 16-bit floats)' : ', as `a` is');
  if (typeof options !== 'object' || options === null) typeError('options', 'an options object with m, n and k', options);
  checkOptions('options', options, ['m', 'n', 'k', 'transA', 'transB', 'alpha', 'beta', 'lda', 'ldb', 'ldc', 'batch', 'strideA', 'strideB', 'strideC']);
  const o = options as GemmOptions;
  const m = int('m', o.m, 1), n = int('n', o.n, 1), k = int('k', o.k, 1);
  const transA = flag('transA', o.transA ?? false), transB = flag('transB', o.transB ?? false);
  const alpha = finite('alpha', o.alpha ?? 1), beta = finite('beta', o.beta ?? 0);
  const rowsA = transA ? k : m, colsA = transA ? m : k;
  const rowsB = transB ? n : k, colsB = transB ? k : n;
  const lda = int('lda', o.lda ?? colsA, colsA), ldb = int('ldb', o.ldb ?? colsB, colsB), ldc = int('ldc', o.ldc ?? n, n);
  const batch = int('batch', o.batch ?? 1, 1);
  const strideA = int('strideA', o.strideA ?? rowsA * lda, 0, Number.MAX_SAFE_INTEGER);
  const strideB = int('strideB', o.strideB ?? rowsB * ldb, 0, Number.MAX_SAFE_INTEGER);
  // Batches of C may not overlap: each is written.
  const strideC = int('strideC', o.strideC ?? m * ldc, batch > 1 ? (m - 1) * ldc + n : 0, Number.MAX_SAFE_INTEGER);
  fits('a', A, transA ? 'A is k × m' : 'A is m × k', rowsA, colsA, lda, batch, strideA);
  fits('b', B, transB ? 'B is n × k' : 'B is k × n', rowsB, colsB, ldb, batch, strideB);
  fits('c', C, 'C is m × n', m, n, ldc, batch, strideC);
  apart('c', C, 'a', A);
  apart('c', C, 'b', B);
  stream.lane.checkOpen();

  // Column-major for cuBLAS: Cᵀ (n × m) = op(B)ᵀ (n × k) · op(A)ᵀ (k × m).
  block[G.transA] = transB ? 1 : 0;
  block[G.transB] = transA ? 1 : 0;
  block[G.m] = n;
  block[G.n] = m;
  block[G.k] = k;
  block[G.alpha] = alpha;
  block[G.beta] = beta;
  writeAddress(block, G.aLo, B.lo, B.hi);
  block[G.lda] = ldb;
  block[G.strideA] = strideB;
  writeAddress(block, G.bLo, A.lo, A.hi);
  block[G.ldb] = lda;
  block[G.strideB] = strideA;
  writeAddress(block, G.cLo, C.lo, C.hi);
  block[G.ldc] = ldc;
  block[G.strideC] = strideC;
  block[G.batch] = batch;
  block[G.abType] = ELEMENT[type];
  block[G.cType] = ELEMENT[C.dtype as GemmDType];
}

const NAMES = ['f32', 'f16', 'bf16', 'f64'];

/** @internal How messages name the GEMM of a block: `gemm (f32, 64×64×64)`. */
export function gemmName(block: Float64Array): string {
  const [ab, c] = [NAMES[block[G.abType]!]!, NAMES[block[G.cType]!]!];
  const batch = block[G.batch]!;
  // The block is cuBLAS's: its m and n are rxcuda's n and m.
  return `gemm (${ab === c ? ab : `${ab}→${c}`}, ${block[G.n]}×${block[G.m]}×${block[G.k]}${batch > 1 ? ` × ${batch}` : ''})`;
}

/** @internal What a graph's node of this GEMM cannot change: everything but addresses and scalars. */
export function gemmShape(block: Float64Array): string {
  const fixed = [G.transA, G.transB, G.m, G.n, G.k, G.lda, G.strideA, G.ldb, G.strideB, G.ldc, G.strideC, G.batch, G.abType, G.cType];
  // cuBLAS may pick other kernels when a factor is 0.
  return `gemm ${fixed.map((i) => block[i]).join(',')} ${block[G.alpha] === 0} ${block[G.beta] === 0}`;
}
