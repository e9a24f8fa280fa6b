// The one check of options objects: a plain object whose keys are all known, so that a misspelt
// option (`nonblocking`) is refused by name, with the option it was probably meant to be.
import { ArgumentTypeError, describe, typeError } from './errors.js';

/**
 * Throws unless `value` is undefined or an options object whose own enumerable keys are all
 * among `known`: a TypeError ``Expected `options` to be an options object, got …`` for anything
 * else (an array, a revoked proxy), and for a key it does not know ``Unknown option `nonblocking`;
 * did you mean `nonBlocking`?``. Nested options name their path in `prefix` (`deadLetter.`).
 * Allocation-free for an object whose keys are known, so that per-call checks cost nothing.
 */
export function checkOptions(name: string, value: unknown, known: readonly string[], prefix = ''): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null || isArrayOrRevoked(value)) typeError(name, 'an options object', value);
  try {
    for (const key in value) if (Object.hasOwn(value, key) && !known.includes(key)) throw new UnknownKey(key);
  } catch (error) {
    if (error instanceof UnknownKey) unknownOption(error.key, known, prefix);
    throw error; // a trap of the caller's proxy threw: its own error, as Node's APIs let it through
  }
}

/** Carries an unknown key out of the allocation-free loop above. */
class UnknownKey {
  constructor(readonly key: string) {}
}

/** Throws the TypeError (code `ERR_UNKNOWN_OPTION`) for an option `key` that is not among `known`. */
export function unknownOption(key: string, known: readonly string[], prefix = ''): never {
  const near = nearest(key, known);
  const shown = `\`${prefix}${key}\``;
  if (near !== undefined) throw new ArgumentTypeError(`Unknown option ${shown}; did you mean \`${prefix}${near}\`?`, 'ERR_UNKNOWN_OPTION');
  const list = known.length > 0 ? `; the options are ${known.map((k) => `\`${prefix}${k}\``).join(', ')}` : '; it takes no options';
  throw new ArgumentTypeError(`Unknown option ${describeKey(shown, key)}${list}`, 'ERR_UNKNOWN_OPTION');
}

/** A key as shown in a message: as it is, unless it is too odd to print (control characters). */
function describeKey(shown: string, key: string): string {
  return /^[\x20-\x7e]*$/.test(key) ? shown : describe(key);
}

/**
 * The known key nearest to `key` by edit distance, letters compared without case (a
 * transposition counts one edit), if it is near enough to be a misspelling of it: at most a third
 * of its letters off, and at least one.
 */
export function nearest(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : undefined;
}

/** The optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/** `Array.isArray` that counts a revoked proxy (which every operation refuses) as not an object. */
function isArrayOrRevoked(value: object): boolean {
  try {
    return Array.isArray(value);
  } catch {
    return true;
  }
}
