// Objects only rxcuda makes (devices, streams, arrays, kernels, graph nodes, pipeline values):
// their constructors take a token that rxcuda's own code alone holds (this file is not exported),
// so that `new DeviceArray()` says which factory to use instead of failing further in.
import { ArgumentTypeError } from './errors.js';

/** The token rxcuda's own code passes to the constructors of the objects it makes. */
export const CONSTRUCTOR_TOKEN: unique symbol = Symbol('made by rxcuda');

/** The type of {@link CONSTRUCTOR_TOKEN}, for constructor parameters. */
export type ConstructorToken = typeof CONSTRUCTOR_TOKEN;

/**
 * Throws a TypeError (code `ERR_ILLEGAL_CONSTRUCTOR`) that names the factory of `what` (``Use
 * stream.alloc() to make a DeviceArray …``), unless `token` is rxcuda's own.
 */
export function checkConstructorToken(token: unknown, what: string, factory: string): void {
  if (token !== CONSTRUCTOR_TOKEN) throw new ArgumentTypeError(`Use ${factory} to make ${what}: its constructor is rxcuda's own`, 'ERR_ILLEGAL_CONSTRUCTOR');
}
