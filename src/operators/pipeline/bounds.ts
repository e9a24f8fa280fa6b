// The bounds of the numbers a user sizes the reactive layer's resources by (lanes, side streams,
// values in flight): each ends in streams, events or memory, so a number far past any use is
// taken for a mistake and refused by name, before anything is made.
import { rangeError, typeError } from '../../core/base/errors.js';

/**
 * The most lanes a pool has on a device. A GPU runs the work of at most 32 streams side by side
 * (its hardware queues); far more lanes only cost streams, so a larger number is taken for a
 * mistake.
 */
export const MAX_LANES = 1024;

/**
 * The most branches of a `fanOut`: each is a side stream (and an event) of every lane that runs
 * it, kept for the pool's life. A GPU runs at most 32 streams side by side.
 */
export const MAX_BRANCHES = 64;

/**
 * The most values a pool lets be in flight at once: each holds its pooled memory (and on a GPU
 * an event) until its work is done. Far more than lanes can overlap.
 */
export const MAX_IN_FLIGHT = 65_536;

/**
 * `value`, an integer in `min..max`; else a TypeError (not a number) or a RangeError (a number
 * outside, or not an integer) that names `name` and the bound.
 */
export function checkBounded(name: string, value: unknown, max: number, min = 1): number {
  if (typeof value !== 'number') typeError(name, `an integer in ${min}..${max}`, value);
  if (!Number.isInteger(value) || value < min || value > max) rangeError(name, `an integer in ${min}..${max}`, value);
  return value;
}
