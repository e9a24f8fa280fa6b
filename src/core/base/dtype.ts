// Element types of device and host arrays, and the scalar parameter types of kernels.
import { typedArrayName } from './buffers.js';
import { rangeError, typeError } from './errors.js';

/**
 * An element type: signed/unsigned integers of 8–64 bits, IEEE floats of 16, 32, 64 bits, and
 * bfloat16 (`bf16`: an f32's sign, exponent and top 7 mantissa bits).
 */
export type DType = 'i8' | 'u8' | 'i16' | 'u16' | 'i32' | 'u32' | 'i64' | 'u64' | 'f16' | 'bf16' | 'f32' | 'f64';

/** The TypedArray that holds each element type on the host (f16 and bf16 as raw 16-bit patterns). */
export interface TypedArrayOf {
  /** Signed 8-bit integers. */
  i8: Int8Array;
  /** Unsigned 8-bit integers. */
  u8: Uint8Array;
  /** Signed 16-bit integers. */
  i16: Int16Array;
  /** Unsigned 16-bit integers. */
  u16: Uint16Array;
  /** Signed 32-bit integers. */
  i32: Int32Array;
  /** Unsigned 32-bit integers. */
  u32: Uint32Array;
  /** Signed 64-bit integers, as bigints. */
  i64: BigInt64Array;
  /** Unsigned 64-bit integers, as bigints. */
  u64: BigUint64Array;
  /** Half floats, as their raw bit patterns (see toHalfBits). */
  f16: Uint16Array;
  /** bfloat16s, as their raw bit patterns (see toBFloat16Bits). */
  bf16: Uint16Array;
  /** 32-bit floats. */
  f32: Float32Array;
  /** 64-bit floats. */
  f64: Float64Array;
}

type TypedArrayConstructor<T> = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => T;

/** Size in bytes and host TypedArray of each element type. */
export const DTYPES: {
  readonly [D in DType]: {
    /** Bytes per element. */
    readonly size: number;
    /** The host TypedArray class of the element type. */
    readonly Array: TypedArrayConstructor<TypedArrayOf[D]>;
  };
} = {
  i8: { size: 1, Array: Int8Array },
  u8: { size: 1, Array: Uint8Array },
  i16: { size: 2, Array: Int16Array },
  u16: { size: 2, Array: Uint16Array },
  i32: { size: 4, Array: Int32Array },
  u32: { size: 4, Array: Uint32Array },
  i64: { size: 8, Array: BigInt64Array },
  u64: { size: 8, Array: BigUint64Array },
  f16: { size: 2, Array: Uint16Array },
  bf16: { size: 2, Array: Uint16Array },
  f32: { size: 4, Array: Float32Array },
  f64: { size: 8, Array: Float64Array },
};

const DTYPE_OF_TAG = {
  Int8Array: 'i8', Uint8Array: 'u8', Int16Array: 'i16', Uint16Array: 'u16', Int32Array: 'i32',
  Uint32Array: 'u32', BigInt64Array: 'i64', BigUint64Array: 'u64', Float32Array: 'f32', Float64Array: 'f64',
} as const;

/** The element type of a TypedArray (a Uint16Array reads as u16, never f16 or bf16). */
export type DTypeOfArray<A> = A extends {
  /** The TypedArray's class name, e.g. `Float32Array`. */
  readonly [Symbol.toStringTag]: infer T extends keyof typeof DTYPE_OF_TAG;
} ? (typeof DTYPE_OF_TAG)[T] : never;

/** The element type of a TypedArray other than a Uint8ClampedArray; undefined for anything else. */
export function dtypeOfArray(value: unknown): Exclude<DType, 'f16' | 'bf16'> | undefined {
  const tag = typedArrayName(value); // its slot: a subclass's own toStringTag may say anything
  return tag !== undefined && Object.hasOwn(DTYPE_OF_TAG, tag) ? DTYPE_OF_TAG[tag as keyof typeof DTYPE_OF_TAG] : undefined;
}

/**
 * True when `value` names an element type.
 * @example
 * const dtype = process.env.DTYPE ?? 'f32';
 * if (!isDType(dtype)) throw new TypeError(`Unknown element type ${dtype}`);
 * const array = stream.alloc(dtype, 1024); // dtype is a DType here
 */
export function isDType(value: unknown): value is DType {
  return typeof value === 'string' && Object.hasOwn(DTYPES, value);
}

/** Throws a TypeError naming `name` unless `value` is a dtype. */
export function checkDType(name: string, value: unknown): asserts value is DType {
  if (!isDType(value)) typeError(name, `one of ${Object.keys(DTYPES).join(', ')}`, value);
}

const f64 = new Float64Array(1);
const f64Words = new Uint32Array(f64.buffer);

/** The largest finite half, and the least magnitude that rounds to infinity (65504 + half a last place). */
export const HALF_MAX = 65504;

/**
 * The IEEE binary16 bit pattern nearest to `value` (round to nearest, ties to even), as CUDA's
 * `__float2half_rn` rounds: what a GPU kernel receives for an `f16` argument, and what an `f16`
 * fill writes. NaN and the infinities are kept.
 * @example
 * toHalfBits(1); // 0x3c00
 * toHalfBits(0.1); // 0x2e66, the half nearest to 0.1
 * @throws TypeError for anything but a number; RangeError for a finite number beyond f16's range
 * (±65504, or a value that rounds to it), which would become infinity.
 */
export function toHalfBits(value: number): number {
  if (typeof value !== 'number') typeError('value', 'a number', value);
  const bits = halfBits(value);
  if ((bits & 0x7c00) === 0x7c00 && Number.isFinite(value)) rangeError('value', `a number within f16's range (±${HALF_MAX})`, value);
  return bits;
}

/** {@link toHalfBits} of a number already checked: a finite number beyond the range gives infinity. */
export function halfBits(value: number): number {
  if (Number.isNaN(value)) return 0x7e00;
  f64[0] = value;
  const sign = (f64Words[1]! >>> 16) & 0x8000;
  const exponent = ((f64Words[1]! >>> 20) & 0x7ff) - 1023;
  if (exponent >= 16) return sign | 0x7c00; // beyond 65520: infinity
  // Count the value in units of the result's last place (2^-24 below the normal range): the
  // scaling by a power of two is exact, so one rounding of the count is the only rounding.
  const e = Math.max(exponent, -14);
  const units = Math.abs(value) * 2 ** (10 - e);
  const whole = Math.floor(units);
  const rest = units - whole;
  const rounded = rest > 0.5 || (rest === 0.5 && whole % 2 === 1) ? whole + 1 : whole;
  const bits = ((e + 15) << 10) + rounded - 1024;
  return sign | Math.min(bits, 0x7c00);
}

/**
 * The number that an IEEE binary16 bit pattern stands for, as a host array of `f16` holds them.
 * @example
 * fromHalfBits(0x3c00); // 1
 * fromHalfBits(0x7c00); // Infinity
 * @throws TypeError for anything but an integer; RangeError for one outside 0..65535.
 */
export function fromHalfBits(bits: number): number {
  if (typeof bits !== 'number' || !Number.isInteger(bits)) typeError('bits', 'an integer bit pattern', bits);
  if (bits < 0 || bits > 0xffff) rangeError('bits', 'a 16-bit pattern, 0..65535', bits);
  return halfValue(bits);
}

/** {@link fromHalfBits} of a pattern already known to be one. */
export function halfValue(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >>> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

const f32 = new Float32Array(1);
const f32Word = new Uint32Array(f32.buffer);

/** The largest finite bfloat16 (an f32's exponent range with 8 bits of significand). */
export const BFLOAT16_MAX = 3.3895313892515355e38;

/**
 * The bfloat16 bit pattern nearest to `value` (round to nearest, ties to even, from its f32
 * rounding, as a GPU converts): the upper half of the f32's bits, rounded. NaN and the infinities
 * are kept.
 * @example
 * toBFloat16Bits(1); // 0x3f80
 * @throws TypeError for anything but a number; RangeError for a finite number beyond bf16's range
 * (±3.39e38, or a value that rounds beyond it), which would become infinity.
 */
export function toBFloat16Bits(value: number): number {
  if (typeof value !== 'number') typeError('value', 'a number', value);
  const bits = bfloat16Bits(value);
  if ((bits & 0x7f80) === 0x7f80 && Number.isFinite(value)) rangeError('value', `a number within bf16's range (±${BFLOAT16_MAX})`, value);
  return bits;
}

/** {@link toBFloat16Bits} of a number already checked: a finite number beyond the range gives infinity. */
export function bfloat16Bits(value: number): number {
  if (Number.isNaN(value)) return 0x7fc0;
  f32[0] = value;
  const bits = f32Word[0]!;
  if ((bits & 0x7f800000) === 0x7f800000) return bits >>> 16; // the f32 rounding went infinite
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

/**
 * The number that a bfloat16 bit pattern stands for, as a host array of `bf16` holds them.
 * @example
 * fromBFloat16Bits(0x3f80); // 1
 * @throws TypeError for anything but an integer; RangeError for one outside 0..65535.
 */
export function fromBFloat16Bits(bits: number): number {
  if (typeof bits !== 'number' || !Number.isInteger(bits)) typeError('bits', 'an integer bit pattern', bits);
  if (bits < 0 || bits > 0xffff) rangeError('bits', 'a 16-bit pattern, 0..65535', bits);
  return bfloat16Value(bits);
}

/** {@link fromBFloat16Bits} of a pattern already known to be one. */
export function bfloat16Value(bits: number): number {
  f32Word[0] = (bits & 0xffff) << 16;
  return f32[0]!;
}
