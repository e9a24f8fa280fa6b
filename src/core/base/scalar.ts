// Checking and encoding of scalar values (kernel arguments, fill values) by element type.
import { DTYPES, toBFloat16Bits, toHalfBits, type DType } from './dtype.js';
import { describe } from './errors.js';

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
  if (!range) return `a number (${type})`;
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
    if (typeof value !== 'number') throw new TypeError(message());
    return;
  }
  const wide = type === 'i64' || type === 'u64';
  if (typeof value === 'bigint' && wide) {
    if (value < range[0] || value > range[1]) throw new RangeError(message());
    return;
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new TypeError(message());
  if (!Number.isSafeInteger(value) || value < Number(range[0]) || value > Number(range[1]))
    throw new RangeError(message());
}

const scratch = new ArrayBuffer(8);
const scratchWords = new Uint32Array(scratch);

/** The little-endian bit pattern of `value` as `type`, as two 32-bit words (low, high). */
export function scalarBits(type: DType, value: number | bigint): [number, number] {
  scratchWords[0] = 0;
  scratchWords[1] = 0;
  if (type === 'f16') {
    scratchWords[0] = toHalfBits(value as number);
  } else if (type === 'bf16') {
    scratchWords[0] = toBFloat16Bits(value as number);
  } else if (type === 'i64' || type === 'u64') {
    new BigUint64Array(scratch)[0] = BigInt.asUintN(64, BigInt(value));
  } else {
    new DTYPES[type].Array(scratch, 0, 1)[0] = value as never;
  }
  return [scratchWords[0]!, scratchWords[1]!];
}
