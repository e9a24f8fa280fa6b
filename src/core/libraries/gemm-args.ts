// GEMM's arguments: checked against the arrays before anything is enqueued, then written into a
// block as cuBLAS takes them. rxcuda's matrices are row-major; cuBLAS's are column-major, and a
// row-major matrix read column-major is its transpose, so C = op(A)·op(B) is asked of cuBLAS as
// Cᵀ = op(B)ᵀ·op(A)ᵀ: the operands swapped, m and n swapped, each keeping its own transpose flag.
import { rangeError, received, typeError } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import { isDeviceMemory, type DeviceMemoryView } from '../memory/memory-view.js';
import type { DeviceEngine } from '../device/device-engine.js';
import type { StreamEngine } from '../queue/stream-engine.js';
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

/** The options as a call gave them, each read once. */
type GivenGemm = { readonly [K in keyof GemmOptions]-?: GemmOptions[K] | undefined };

/** @internal The options gemm takes: every call's options object is checked against them. */
export const GEMM_KEYS: readonly string[] = ['m', 'n', 'k', 'transA', 'transB', 'alpha', 'beta', 'lda', 'ldb', 'ldc', 'batch', 'strideA', 'strideB', 'strideC'];

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
function operand(name: string, value: unknown, device: DeviceEngine, dtypes: readonly string[], as: string): DeviceMemoryView {
  if (!isDeviceMemory(value)) typeError(name, `a DeviceArray of ${either(dtypes)}${as}`, value);
  if (value.allocation.freed) typeError(name, 'an open DeviceArray', received('a closed DeviceArray'));
  if (!dtypes.includes(value.dtype)) typeError(name, `a DeviceArray of ${either(dtypes)}${as}`, received(`a DeviceArray of ${value.dtype}`));
  if (value.allocation.device !== device) rangeError(name, `memory of ${device}`, received(`memory of ${value.allocation.device}`));
  return value;
}

/** Throws unless a matrix of `rows` × `cols` (row stride `ld`), `batch` times at `stride`, fits `array`. */
function fits(name: string, array: DeviceMemoryView, what: string, rows: number, cols: number, ld: number, batch: number, stride: number): void {
  const needed = (batch - 1) * stride + (rows - 1) * ld + cols;
  if (array.length < needed)
    rangeError(name, `at least ${needed} elements (${what}: ${rows} × ${cols}${ld === cols ? '' : `, rows ${ld} apart`}${batch > 1 ? `, ${batch} of them ${stride} apart` : ''})`, received(`a DeviceArray of ${array.length}`));
}

/** The first byte's address as a number (exact: addresses are below 2^53), without BigInt work. */
function start(array: DeviceMemoryView): number {
  return array.hi * 4294967296 + array.lo;
}

function apart(name: string, a: DeviceMemoryView, other: string, b: DeviceMemoryView): void {
  const [x, y] = [start(a), start(b)];
  if (x < y + b.byteLength && y < x + a.byteLength) rangeError(name, `memory apart from \`${other}\``, received('memory that overlaps it'));
}

/** What B may be for A of each type (A's), and what C may be. */
const SAME: Record<GemmDType, readonly string[]> = { f16: ['f16'], bf16: ['bf16'], f32: ['f32'], f64: ['f64'] };
const OUTPUTS: Record<GemmDType, readonly string[]> = { f16: ['f16', 'f32'], bf16: ['bf16', 'f32'], f32: ['f32'], f64: ['f64'] };

/** A GEMM's options, checked, with the defaults filled in. */
interface CheckedGemm {
  readonly m: number; readonly n: number; readonly k: number; readonly transA: boolean; readonly transB: boolean;
  readonly alpha: number; readonly beta: number; readonly rowsA: number; readonly colsA: number; readonly rowsB: number;
  readonly colsB: number; readonly lda: number; readonly ldb: number; readonly ldc: number; readonly batch: number;
  readonly strideA: number; readonly strideB: number; readonly strideC: number;
}

/** `value`, or `fallback` where it was not given: undefined only (null is a value, and refused). */
function or<T>(value: T | undefined, fallback: T): T {
  return value === undefined ? fallback : value;
}

/** Checks the options as given (each read once by the caller) and fills in the defaults. */
function checkShape(given: GivenGemm): CheckedGemm {
  const m = int('m', given.m, 1), n = int('n', given.n, 1), k = int('k', given.k, 1);
  const transA = flag('transA', or(given.transA, false)), transB = flag('transB', or(given.transB, false));
  const alpha = finite('alpha', or(given.alpha, 1)), beta = finite('beta', or(given.beta, 0));
  const rowsA = transA ? k : m, colsA = transA ? m : k;
  const rowsB = transB ? n : k, colsB = transB ? k : n;
  const lda = int('lda', or(given.lda, colsA), colsA), ldb = int('ldb', or(given.ldb, colsB), colsB), ldc = int('ldc', or(given.ldc, n), n);
  const batch = int('batch', or(given.batch, 1), 1);
  const strideA = int('strideA', or(given.strideA, rowsA * lda), 0, Number.MAX_SAFE_INTEGER);
  const strideB = int('strideB', or(given.strideB, rowsB * ldb), 0, Number.MAX_SAFE_INTEGER);
  // Batches of C may not overlap: each is written.
  const strideC = int('strideC', or(given.strideC, m * ldc), batch > 1 ? (m - 1) * ldc + n : 0, Number.MAX_SAFE_INTEGER);
  return { m, n, k, transA, transB, alpha, beta, rowsA, colsA, rowsB, colsB, lda, ldb, ldc, batch, strideA, strideB, strideC };
}

/**
 * @internal Checks a GEMM on `stream` (its lane `lane`, a stream of `device` already checked),
 * writes it into `block` (all but the stream and
 * the workspace) and remembers it in `last`; options of the values `last` checked before are not
 * checked again (a pipeline's values over pooled arrays: the same shape, other arrays). Nothing
 * is enqueued.
 * @throws TypeError/RangeError naming the bad argument.
 */
export function checkGemm(device: DeviceEngine, stream: object, lane: StreamEngine, a: unknown, b: unknown, c: unknown, options: unknown, block: Float64Array, last: LastGemm): void {
  const A = operand('a', a, device, TYPES, '');
  const type = A.dtype as GemmDType;
  const B = operand('b', b, device, SAME[type], ', as `a` is');
  const half = type === 'f16' || type === 'bf16';
  const C = operand('c', c, device, OUTPUTS[type], half ? ' (for `a` of 16-bit floats)' : ', as `a` is');
  if (typeof options !== 'object' || options === null) typeError('options', 'an options object with m, n and k', options);
  checkOptions('options', options, GEMM_KEYS);
  let s = last.checkedFor(options);
  if (!s) {
    // Each option read once: what is checked is what the block gets, and what `last` remembers.
    const o = options as GemmOptions;
    const given: GivenGemm = {
      m: o.m, n: o.n, k: o.k, transA: o.transA, transB: o.transB, alpha: o.alpha, beta: o.beta,
      lda: o.lda, ldb: o.ldb, ldc: o.ldc, batch: o.batch, strideA: o.strideA, strideB: o.strideB, strideC: o.strideC,
    };
    s = checkShape(given);
    last.options(given, s);
  }
  fits('a', A, s.transA ? 'A is k × m' : 'A is m × k', s.rowsA, s.colsA, s.lda, s.batch, s.strideA);
  fits('b', B, s.transB ? 'B is n × k' : 'B is k × n', s.rowsB, s.colsB, s.ldb, s.batch, s.strideB);
  fits('c', C, 'C is m × n', s.m, s.n, s.ldc, s.batch, s.strideC);
  apart('c', C, 'a', A);
  apart('c', C, 'b', B);
  lane.checkOpen();
  last.call(stream, A, B, C);

  // Column-major for cuBLAS: Cᵀ (n × m) = op(B)ᵀ (n × k) · op(A)ᵀ (k × m).
  block[G.transA] = s.transB ? 1 : 0;
  block[G.transB] = s.transA ? 1 : 0;
  block[G.m] = s.n;
  block[G.n] = s.m;
  block[G.k] = s.k;
  block[G.alpha] = s.alpha;
  block[G.beta] = s.beta;
  writeAddress(block, G.aLo, B.lo, B.hi);
  block[G.lda] = s.ldb;
  block[G.strideA] = s.strideB;
  writeAddress(block, G.bLo, A.lo, A.hi);
  block[G.ldb] = s.lda;
  block[G.strideB] = s.strideA;
  writeAddress(block, G.cLo, C.lo, C.hi);
  block[G.ldc] = s.ldc;
  block[G.strideC] = s.strideC;
  block[G.batch] = s.batch;
  block[G.abType] = ELEMENT[type];
  block[G.cType] = ELEMENT[C.dtype as GemmDType];
}

/**
 * @internal What a Blas checked last: the option values, and the call (stream and arrays) whose
 * block it wrote. A call with the same ones (a loop's) finds its block written already, and needs
 * no check but that the stream and the arrays are still open and that its options object has no
 * key gemm does not take (the caller checks those); a call with the same option values
 * only (a pipeline's next value, over other pooled arrays) needs its arrays checked. The options
 * are read again, field by field, since an options object may have changed since.
 */
export class LastGemm {
  #stream: unknown;
  #a: DeviceMemoryView | undefined;
  #b: DeviceMemoryView | undefined;
  #c: DeviceMemoryView | undefined;
  /** The block holds the call of #stream, #a, #b, #c with the options remembered. */
  #written = false;
  #checked: CheckedGemm | undefined;
  #m: unknown; #n: unknown; #k: unknown; #transA: unknown; #transB: unknown; #alpha: unknown; #beta: unknown;
  #lda: unknown; #ldb: unknown; #ldc: unknown; #batch: unknown; #strideA: unknown; #strideB: unknown; #strideC: unknown;

  /** Whether this call is the one whose block was written last, its arrays still open. */
  is(stream: unknown, a: unknown, b: unknown, c: unknown, options: unknown): boolean {
    if (!this.#written || stream !== this.#stream || a !== this.#a || b !== this.#b || c !== this.#c) return false;
    if (this.#a!.closed || this.#b!.closed || this.#c!.closed) return false;
    return this.checkedFor(options) !== undefined;
  }

  /**
   * The options as checked, when `options` holds the values checked last; else undefined (also
   * where reading them throws: the full check then says why).
   */
  checkedFor(options: unknown): CheckedGemm | undefined {
    if (typeof options !== 'object' || options === null) return undefined;
    try {
      return this.#same(options as GemmOptions) ? this.#checked : undefined;
    } catch {
      return undefined;
    }
  }

  #same(o: GemmOptions): boolean {
    return o.m === this.#m && o.n === this.#n && o.k === this.#k && o.transA === this.#transA && o.transB === this.#transB &&
      o.alpha === this.#alpha && o.beta === this.#beta && o.lda === this.#lda && o.ldb === this.#ldb && o.ldc === this.#ldc &&
      o.batch === this.#batch && o.strideA === this.#strideA && o.strideB === this.#strideB && o.strideC === this.#strideC;
  }

  /** Remembers options checked (as they were read): the block holds another call for now. */
  options(o: GivenGemm, checked: CheckedGemm): void {
    this.#m = o.m; this.#n = o.n; this.#k = o.k; this.#transA = o.transA; this.#transB = o.transB; this.#alpha = o.alpha; this.#beta = o.beta;
    this.#lda = o.lda; this.#ldb = o.ldb; this.#ldc = o.ldc; this.#batch = o.batch; this.#strideA = o.strideA; this.#strideB = o.strideB; this.#strideC = o.strideC;
    this.#checked = checked;
    this.#written = false;
  }

  /** Remembers the call whose block is written now, with the options remembered. */
  call(stream: object, a: DeviceMemoryView, b: DeviceMemoryView, c: DeviceMemoryView): void {
    this.#stream = stream;
    this.#a = a;
    this.#b = b;
    this.#c = c;
    this.#written = true;
  }
}

const NAMES = ['f32', 'f16', 'bf16', 'f64'];

/** @internal How messages name the GEMM of a block: `gemm (f32, 64×64×64)`. */
export function gemmName(block: Float64Array): string {
  const [ab, c] = [NAMES[block[G.abType]!]!, NAMES[block[G.cType]!]!];
  const batch = block[G.batch]!;
  // The block is cuBLAS's: its m and n are rxcuda's n and m.
  return `gemm (${ab === c ? ab : `${ab}→${c}`}, ${block[G.n]}×${block[G.m]}×${block[G.k]}${batch > 1 ? ` × ${batch}` : ''})`;
}

/**
 * The fields of a block (cuBLAS's: its A is rxcuda's B) that a GEMM's name leaves out, by the
 * option that gives each; alpha and beta count where one of them becomes or stops being 0.
 */
const UNNAMED: readonly (readonly [string, number])[] = [
  ['transA', G.transB], ['transB', G.transA], ['lda', G.ldb], ['ldb', G.lda], ['ldc', G.ldc],
  ['strideA', G.strideB], ['strideB', G.strideA], ['strideC', G.strideC], ['alpha', G.alpha], ['beta', G.beta],
];

/**
 * @internal What makes the GEMM of block `now` another shape than that of `was` (of one name), in
 * words: `alpha 1 → 0 (…)`, `transB false → true`.
 */
export function gemmChange(was: Float64Array, now: Float64Array): string {
  const changes: string[] = [];
  let scalars = false;
  for (const [name, at] of UNNAMED) {
    const [before, after] = [was[at]!, now[at]!];
    const scalar = at === G.alpha || at === G.beta;
    if (scalar ? (before === 0) === (after === 0) : before === after) continue;
    scalars ||= scalar;
    const shown = (v: number) => (at === G.transA || at === G.transB ? String(v === 1) : String(v));
    changes.push(`${name} ${shown(before)} → ${shown(after)}`);
  }
  const why = scalars ? ' (cuBLAS runs other kernels where alpha or beta is 0: capture the graph with the value it will have)' : '';
  return `${changes.join(', ') || 'another layout'}${why}`;
}

/** What a graph's node of a GEMM cannot change: everything but addresses and scalars. */
const FIXED = [G.transA, G.transB, G.m, G.n, G.k, G.lda, G.strideA, G.ldb, G.strideB, G.ldc, G.strideC, G.batch, G.abType, G.cType];

/**
 * @internal The name and shape (what a graph's node of it cannot change) of the GEMM in a block,
 * made again only when the shape changed: each value of a replayed pipeline records the same.
 */
export class GemmShape {
  /** The fixed fields, then whether alpha and beta are 0 (cuBLAS may pick other kernels then). */
  readonly #fields = new Float64Array(FIXED.length + 2).fill(NaN);
  name = '';
  shape = '';

  of(block: Float64Array): this {
    const fields = this.#fields;
    const alpha = block[G.alpha] === 0 ? 1 : 0, beta = block[G.beta] === 0 ? 1 : 0;
    let same = fields[FIXED.length] === alpha && fields[FIXED.length + 1] === beta;
    for (let i = 0; same && i < FIXED.length; i++) same = fields[i] === block[FIXED[i]!];
    if (same) return this;
    for (let i = 0; i < FIXED.length; i++) fields[i] = block[FIXED[i]!]!;
    fields[FIXED.length] = alpha;
    fields[FIXED.length + 1] = beta;
    this.name = gemmName(block);
    this.shape = `gemm ${FIXED.map((i) => block[i]).join(',')} ${alpha === 1} ${beta === 1}`;
    return this;
  }
}
