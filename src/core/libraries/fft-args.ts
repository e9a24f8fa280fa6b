// FFT arguments: a transform's kind, sizes and batch, and the arrays it reads and writes, checked
// before anything is enqueued. Complex data is interleaved (re, im) in arrays of f32 or f64;
// sizes are row-major (the last dimension contiguous), batches packed one after another, as
// cuFFT's basic layout has them.
import { isArray, rangeError, received, typeError } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import { isDeviceMemory, type DeviceMemoryView } from '../memory/memory-view.js';
import type { DeviceEngine } from '../device/device-engine.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import { F, KIND, P, PRECISION, writeAddress } from './native.js';

/** Element types of FFT data: f32 (complex as interleaved f32 pairs) and f64. */
export type FftDType = 'f32' | 'f64';

/** A transform's kind: complex to complex, real to complex (forward), complex to real (inverse). */
export type FftKind = 'c2c' | 'r2c' | 'c2r';

/** The sizes and batch of a transform. */
export interface FftOptions {
  /**
   * The transform's sizes, slowest first: one number (1-D), or 1 to 3 of them. For r2c and c2r,
   * the real data's; the complex side's last dimension has `last / 2 + 1` elements.
   */
  readonly shape: number | readonly number[];
  /** Transforms of that shape, one after another in each array. @default 1 */
  readonly batch?: number;
}

/** The options of a complex-to-complex transform. */
export interface C2cOptions extends FftOptions {
  /** `forward` (e^−2πi jk/n) or `inverse` (e^+2πi jk/n, unnormalized). @default 'forward' */
  readonly direction?: 'forward' | 'inverse';
}

/** @internal The option names of the real transforms and of a complex one. */
export const FFT_KEYS: readonly string[] = ['shape', 'batch'];
export const C2C_KEYS: readonly string[] = [...FFT_KEYS, 'direction'];

const INT_MAX = 2 ** 31 - 1;

/** Checks the sizes and writes them into the description; returns their product. */
function dimensions(value: unknown, description: Float64Array): number {
  const one = typeof value === 'number';
  const rank = one ? 1 : isArray(value) ? value.length : 0;
  if (rank < 1 || rank > 3) typeError('shape', 'a size or an array of 1 to 3 sizes', value);
  let points = 1;
  for (let i = 0; i < rank; i++) {
    const n = one ? value : (value as readonly unknown[])[i];
    const name = one ? 'shape' : `shape[${i}]`;
    if (typeof n !== 'number' || !Number.isInteger(n)) typeError(name, `an integer in 1..${INT_MAX}`, n);
    if (n < 1 || n > INT_MAX) rangeError(name, `an integer in 1..${INT_MAX}`, n);
    description[P.n0 + i] = n;
    points *= n;
  }
  for (let i = rank; i < 3; i++) description[P.n0 + i] = 0;
  description[P.rank] = rank;
  return points;
}

function data(name: string, value: unknown, device: DeviceEngine, dtype: string | undefined, complex: boolean): DeviceMemoryView {
  const what = dtype ? `a DeviceArray of ${dtype}, as \`input\` is` : 'a DeviceArray of f32 or f64';
  if (!isDeviceMemory(value)) typeError(name, what, value);
  if (value.allocation.freed) typeError(name, 'an open DeviceArray', received('a closed DeviceArray'));
  if (dtype ? value.dtype !== dtype : value.dtype !== 'f32' && value.dtype !== 'f64') typeError(name, what, received(`a DeviceArray of ${value.dtype}`));
  if (value.allocation.device !== device) rangeError(name, `memory of ${device}`, received(`memory of ${value.allocation.device}`));
  // cuFFT reads complex elements whole: aligned to their size (which divides 2^32: the low word says).
  const align = complex ? 2 * (value.dtype === 'f64' ? 8 : 4) : 1;
  if (value.lo % align !== 0) rangeError(name, `aligned to ${align} bytes (a complex ${value.dtype})`, received(`memory ${value.lo % align} bytes past`));
  return value;
}

function atLeast(name: string, array: DeviceMemoryView, needed: number, what: string): void {
  if (array.length < needed) rangeError(name, `at least ${needed} elements (${what})`, received(`a DeviceArray of ${array.length}`));
}

/** `64 × 4096`, or `4096, 32 of them` for a batch. */
function shapeOf(description: Float64Array): string {
  const sizes = [...description.subarray(P.n0, P.n0 + description[P.rank]!)].join(' × ');
  const batch = description[P.batch]!;
  return `${sizes}${batch > 1 ? `, ${batch} of them` : ''}`;
}

/** @internal How messages name a transform: `r2c (f32, 4096, 64 of them)`. */
export function fftName(description: Float64Array): string {
  return `${KINDS[description[P.kind]!]} (${description[P.precision] ? 'f64' : 'f32'}, ${shapeOf(description)})`;
}

const KINDS: readonly FftKind[] = ['c2c', 'r2c', 'c2r'];

/**
 * @internal What makes the transform of execution block `now` another shape than that of `was`
 * (of one plan's name): its direction.
 */
export function fftChange(was: Float64Array, now: Float64Array): string {
  const direction = (block: Float64Array) => (block[F.direction] === 1 ? 'inverse' : 'forward');
  return `direction ${direction(was)} → ${direction(now)}`;
}

/**
 * @internal Checks a transform of `kind` on `stream` (its lane `lane`, a stream of `device` already
 * checked); writes its plan's description
 * into `description` and its arrays and direction into `block`, and remembers it in `checked`.
 * Nothing is enqueued.
 * @throws TypeError/RangeError naming the bad argument.
 */
export function checkFft(
  device: DeviceEngine, kind: FftKind, stream: object, lane: StreamEngine, input: unknown, output: unknown, options: unknown,
  description: Float64Array, block: Float64Array, checked: LastFft<unknown>,
): void {
  const inputs = data('input', input, device, undefined, kind !== 'r2c');
  const outputs = data('output', output, device, inputs.dtype, kind !== 'c2r');
  if (typeof options !== 'object' || options === null) typeError('options', 'an options object with the shape', options);
  checkOptions('options', options, kind === 'c2c' ? C2C_KEYS : FFT_KEYS);
  // Each option read once: what is checked is what the block gets, and what `checked` remembers.
  const o = options as C2cOptions;
  const [shape, givenBatch, givenDirection] = [o.shape, o.batch, o.direction];
  const points = dimensions(shape, description);
  // Only undefined is "not given": null is a value, and refused.
  const batch = givenBatch === undefined ? 1 : givenBatch;
  if (typeof batch !== 'number' || !Number.isInteger(batch)) typeError('batch', `an integer in 1..${INT_MAX}`, batch);
  if (batch < 1 || batch > INT_MAX) rangeError('batch', `an integer in 1..${INT_MAX}`, batch);
  const direction = givenDirection === undefined ? 'forward' : givenDirection;
  if (kind === 'c2c' && direction !== 'forward' && direction !== 'inverse') typeError('direction', "'forward' or 'inverse'", givenDirection);
  description[P.kind] = KIND[kind];
  description[P.precision] = PRECISION[inputs.dtype as FftDType];
  description[P.batch] = batch;
  const last = description[P.n0 + description[P.rank]! - 1]!;
  const half = (points / last) * (Math.floor(last / 2) + 1);
  const real = points * batch, complex = (kind === 'c2c' ? points : half) * batch * 2;
  if (complex > Number.MAX_SAFE_INTEGER) rangeError('shape', 'sizes whose data can be addressed', shape);
  if (inputs.length < (kind === 'r2c' ? real : complex) || outputs.length < (kind === 'c2r' ? real : complex)) {
    // "124 reals: 2 × 62", "2112 complex values, interleaved: 64 × 33".
    const sizes = [...description.subarray(P.n0, P.n0 + description[P.rank]!)];
    const of = (dims: number[]) => (dims.length > 1 || batch > 1 ? `: ${batch > 1 ? `${batch} × ` : ''}${dims.join(' × ')}` : '');
    const halves = kind === 'c2c' ? sizes : [...sizes.slice(0, -1), Math.floor(last / 2) + 1];
    const reals = `${real} reals${of(sizes)}`, complexes = `${complex / 2} complex values, interleaved${of(halves)}`;
    if (kind === 'r2c') atLeast('input', inputs, real, reals);
    else atLeast('input', inputs, complex, complexes);
    if (kind === 'c2r') atLeast('output', outputs, real, reals);
    else atLeast('output', outputs, complex, complexes);
  }
  // In place: a complex transform may overwrite its input; other transforms have sides of other sizes.
  // Addresses as numbers (exact: below 2^53), without BigInt work.
  const [from, to] = [inputs.hi * 4294967296 + inputs.lo, outputs.hi * 4294967296 + outputs.lo];
  const inPlace = from === to && kind === 'c2c';
  if (!inPlace && from < to + outputs.byteLength && to < from + inputs.byteLength)
    rangeError('output', kind === 'c2c' ? 'memory apart from `input`, or `input` itself' : 'memory apart from `input`', received('memory that overlaps it'));
  lane.checkOpen();
  checked.remember(kind, stream, inputs, outputs, description, typeof shape === 'number', givenBatch, givenDirection);
  writeAddress(block, F.inLo, inputs.lo, inputs.hi);
  writeAddress(block, F.outLo, outputs.lo, outputs.hi);
  block[F.direction] = kind === 'c2r' || (kind === 'c2c' && direction === 'inverse') ? 1 : -1;
}

/**
 * @internal The transform checked last: its kind, stream, arrays and option values, and its
 * plan. A call with the same ones (a loop's, a pipeline's over pooled arrays) finds its block
 * written and its plan found already, and needs no check but that the stream and the arrays are
 * still open and that its options object has no key the transform does not take (the caller
 * checks those). The options are read again, since an options object may have changed since.
 */
export class LastFft<Plan> {
  #kind: FftKind | undefined;
  #stream: unknown;
  #input: DeviceMemoryView | undefined;
  #output: DeviceMemoryView | undefined;
  /** The sizes as checked, given as one number (`#one`) or an array; the batch and direction as given. */
  readonly #sizes = [0, 0, 0];
  #rank = 0;
  #one = false;
  #batch: unknown;
  #direction: unknown;
  /** The plan of the call remembered (set by the caller once found); undefined when none. */
  plan: Plan | undefined;

  /** The plan of this call when it is the one checked last, its arrays still open. */
  is(kind: FftKind, stream: unknown, input: unknown, output: unknown, options: unknown): Plan | undefined {
    if (kind !== this.#kind || stream !== this.#stream || input !== this.#input || output !== this.#output) return undefined;
    if (typeof options !== 'object' || options === null || this.#input!.closed || this.#output!.closed) return undefined;
    try {
      return this.#same(options as C2cOptions) ? this.plan : undefined;
    } catch {
      return undefined; // options that cannot be read: the full check says why
    }
  }

  #same(o: C2cOptions): boolean {
    if (o.batch !== this.#batch || o.direction !== this.#direction) return false;
    const shape = o.shape;
    if (this.#one) return shape === this.#sizes[0];
    if (!isArray(shape) || shape.length !== this.#rank) return false;
    for (let i = 0; i < this.#rank; i++) if (shape[i] !== this.#sizes[i]) return false;
    return true;
  }

  /** Remembers a call that {@link checkFft} accepted, with the options it read; its plan comes after. */
  remember(kind: FftKind, stream: object, input: DeviceMemoryView, output: DeviceMemoryView, description: Float64Array, one: boolean, batch: unknown, direction: unknown): void {
    [this.#kind, this.#stream, this.#input, this.#output, this.#batch, this.#direction] = [kind, stream, input, output, batch, direction];
    this.#one = one;
    this.#rank = description[P.rank]!;
    for (let i = 0; i < 3; i++) this.#sizes[i] = description[P.n0 + i]!;
    this.plan = undefined;
  }

  /** Forgets the call (its plan may be gone). */
  forget(): void {
    this.#kind = undefined;
    this.plan = undefined;
  }
}
