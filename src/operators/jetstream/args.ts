// Argument checks of rxcuda/jetstream, in rxcuda's wording: ``Expected `name` to be …, got …``.
import { ArgumentRangeError, ArgumentTypeError } from '../../core/base/errors.js';
import { checkOptions as checkKnownOptions } from '../../core/base/options.js';

/** A short rendering of a value an argument was given. */
export function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  const name = (value as object).constructor?.name;
  return name && name !== 'Object' ? `a ${name}` : 'an object';
}

export function typeError(name: string, expected: string, got: unknown): never {
  throw new ArgumentTypeError(`Expected \`${name}\` to be ${expected}, got ${shown(got)}`);
}

export function rangeError(name: string, expected: string, got: unknown): never {
  throw new ArgumentRangeError(`Expected \`${name}\` to be ${expected}, got ${shown(got)}`);
}

/**
 * Throws unless `value` is undefined or a plain options object; with `known`, one whose keys are
 * all among them (rxcuda's one options check, which names a misspelt key and the key it is near).
 * Without, it is options of another library, passed on as they are (a NATS connection's).
 */
export function checkOptions(name: string, value: unknown, known?: readonly string[], prefix?: string): void {
  if (known) return checkKnownOptions(name, value, known, prefix);
  if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) typeError(name, 'an options object', value);
}

/**
 * `value`, a number in `min..max` (integer when `integer`), or `fallback` when undefined; `bound`
 * says where `max` comes from, in the error.
 */
export function checkNumber(name: string, value: unknown, fallback: number, min: number, max = Infinity, integer = true, bound?: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value)) typeError(name, 'a number', value);
  if ((integer && !Number.isInteger(value)) || value < min || value > max)
    rangeError(name, `${integer ? 'an integer' : 'a number'} in ${min}..${max === Infinity ? '' : max}${bound ? ` (${bound})` : ''}`, value);
  return value;
}

/** Throws unless `value` is a non-empty string without spaces (a NATS subject or name). */
export function checkSubject(name: string, value: unknown): string {
  if (typeof value !== 'string') typeError(name, 'a subject (a string)', value);
  if (value.length === 0 || /\s/.test(value)) rangeError(name, 'a non-empty subject without spaces', value);
  return value;
}
