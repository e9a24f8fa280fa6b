// Typed pointer parameters: `'ptr<f32>'` says what a pointer points to, so a launch takes only
// memory of that element type and a CPU implementation receives the matching TypedArray.
import { isDType, type DType } from '../base/dtype.js';

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
