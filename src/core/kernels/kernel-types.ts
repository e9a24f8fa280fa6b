// The types a kernel's signature is written in (what each parameter type takes at a launch, which
// names the public Memory, is api/kernel.ts's ArgOf).
// Typed pointer parameters (`'ptr<f32>'`) say what a pointer points to, so that a launch takes only
// memory of that element type and a CPU implementation receives the matching TypedArray.
import { isDType, type DType } from '../base/dtype.js';

/** A struct passed by value: its size in bytes (and alignment, default 8), given as raw bytes. */
export interface StructParam {
  /** The struct's size in bytes, a positive integer. */
  readonly struct: number;
  /** The struct's alignment in bytes: 1, 2, 4, 8 or 16 (default 8). */
  readonly align?: number;
}

/**
 * One kernel parameter: a scalar element type, a pointer (`'ptr'`, or `'ptr<f32>'` that says what
 * it points to), a struct by value, or a graph's condition (`'condition'`: a
 * `cudaGraphConditionalHandle` in CUDA C++, 8 bytes), which kernels recorded into its graph take.
 */
export type ParamType = DType | 'ptr' | TypedPointer | StructParam | 'condition';

/** A kernel's parameter list, e.g. `['u32', 'f32', 'ptr<f32>', 'ptr<f32>']`. */
export type Signature = readonly ParamType[];

/** A specialization compiled so far, as {@link Kernel.specializations} lists it. */
export interface CompiledSpecialization {
  /** The macros the specialization was compiled with. */
  readonly defines: Readonly<Record<string, string | number | boolean>>;
  /** Whether its compiled code came from the disk cache rather than from NVRTC. */
  readonly fromCache: boolean;
}

/** What {@link Kernel.suggestedBlockSize} suggests. */
export interface BlockSizeSuggestion {
  /** Threads per block that give the most resident blocks per multiprocessor. */
  readonly blockSize: number;
  /** The fewest blocks of `blockSize` that fill every multiprocessor. */
  readonly minGridSize: number;
}


/**
 * A pointer parameter that names its element type, e.g. `'ptr<f32>'` for a `float*`.
 *
 * It takes a DeviceArray or HostArray of that type only (a `DeviceArray<'u8'>` is a compile-time
 * error, and a TypeError at run time); a raw address (`bigint`) needs a plain `'ptr'`, which
 * says nothing about what it points to.
 */
export type TypedPointer<D extends DType = DType> = `ptr<${D}>`;

/**
 * Whether `param` is a typed pointer parameter type.
 *
 * @example
 * isTypedPointer('ptr<f32>') // true
 * isTypedPointer('ptr')      // false: a plain pointer
 * isTypedPointer('ptr<f8>')  // false: no such element type
 *
 * @param param a parameter type, or anything.
 * @returns true for `'ptr<D>'` with D an element type.
 */
export function isTypedPointer(param: unknown): param is TypedPointer {
  return typeof param === 'string' && param.startsWith('ptr<') && param.endsWith('>') && isDType(param.slice(4, -1));
}

/**
 * The element type a typed pointer parameter points to.
 *
 * @example
 * pointee('ptr<f32>') // 'f32'
 *
 * @param param a typed pointer parameter type.
 * @returns its element type.
 */
export function pointee<D extends DType>(param: TypedPointer<D>): D {
  return param.slice(4, -1) as D;
}
