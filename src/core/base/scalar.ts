// Checking and encoding of scalar values (kernel arguments, fill values) by element type, by one
// rule for every type: a value the type cannot hold is refused. Integers must be whole and within
// the type's range (nothing is wrapped or clamped); a float type takes any number its rounding to
// nearest (ties to even, as the GPU's conversions round: `__float2half_rn`, `cvt.rn.f32.f64`)
// keeps finite, and NaN and the infinities as they are, but refuses a finite number beyond its
// range, which that rounding would make infinite (1e40 for f32, 70000 for f16, 1e39 for bf16).
import { BFLOAT16_MAX, DTYPES, HALF_MAX, bfloat16Bits, halfBits, type DType } from './dtype.js';
import { ArgumentRangeError, ArgumentTypeError, describe } from './errors.js';

const INT_RANGES: Partial<Record<DType, readonly [bigint, bigint]>> = {
  i8: [-128n, 127n],
  u8: [0n, 255n],
  i16: [-32768n, 32767n],
  u16: [0n, 65535n],
  i32: [-2147483648n, 2147483647n],
  u32: [0n, 4294967295n],
  i64: [-(2n ** 63n), 2n ** 63n - 1n],
  u64: [0n, 2n ** 64n - 1n],
};

/** What a value of `type` must be, for error messages. */
export function expectation(type: DType): string {
  const range = INT_RANGES[type];
  if (!range) return type === 'f64' ? 'a number (f64)' : `a number within ${type}'s range (±${FLOAT_MAX[type]}; beyond it would become infinity)`;
  const wide = type === 'i64' || type === 'u64';
  return `an integer ${range[0]}..${range[1]} (${type}${wide ? ', a bigint or a safe integer' : ''})`;
}

/**
 * Throws the TypeError (wrong kind of value) or RangeError (out of range) for a value that does
 * not fit `type`; returns when it fits.
 */
export function checkScalar(name: string, type: DType, value: unknown): void {
  const range = INT_RANGES[type];
  const message = () => `Expected \`${name}\` to be ${expectation(type)}, got ${describe(value)}`;
  if (!range) {
    if (typeof value !== 'number') throw new ArgumentTypeError(message());
    if (type !== 'f64' && Number.isFinite(value) && !Number.isFinite(roundTo(type, value))) throw new ArgumentRangeError(message());
    return;
  }
  const wide = type === 'i64' || type === 'u64';
  if (typeof value === 'bigint' && wide) {
    if (value < range[0] || value > range[1]) throw new ArgumentRangeError(message());
    return;
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new ArgumentTypeError(message());
  if (!Number.isSafeInteger(value) || value < Number(range[0]) || value > Number(range[1]))
    throw new ArgumentRangeError(message());
}

/** The largest finite value of each float type narrower than a number. */
const FLOAT_MAX: Partial<Record<DType, number>> = { f16: HALF_MAX, bf16: BFLOAT16_MAX, f32: 3.4028234663852886e38 };

/** `value` rounded to nearest as `type` (f32, bf16 or f16) holds it. */
function roundTo(type: DType, value: number): number {
  if (type === 'f32') return Math.fround(value);
  if (type === 'bf16') return (bfloat16Bits(value) & 0x7f80) === 0x7f80 ? Infinity : value;
  const bits = halfBits(value);
  return (bits & 0x7c00) === 0x7c00 ? (bits & 0x3ff ? NaN : Infinity) : value;
}

const scratch = new ArrayBuffer(8);
const scratchWords = new Uint32Array(scratch);

/** The little-endian bit pattern of `value` as `type`, as two 32-bit words (low, high). */
export function scalarBits(type: DType, value: number | bigint): [number, number] {
  scratchWords[0] = 0;
  scratchWords[1] = 0;
  if (type === 'f16') {
    scratchWords[0] = halfBits(value as number);
  } else if (type === 'bf16') {
    scratchWords[0] = bfloat16Bits(value as number);
  } else if (type === 'i64' || type === 'u64') {
    new BigUint64Array(scratch)[0] = BigInt.asUintN(64, BigInt(value));
  } else {
    new DTYPES[type].Array(scratch, 0, 1)[0] = value as never;
  }
  return [scratchWords[0]!, scratchWords[1]!];
}
