// Parsers for the command line's option values: each rejects what it cannot use with a message
// that says what was expected, before anything runs.
import { InvalidArgumentError } from 'commander';

/**
 * A parser for an integer option within `min..max`, for commander's `.option(…, parser)`.
 * Commander prefixes its message with the option and the value given.
 *
 * @example
 * program.option('--lanes <n>', 'streams', integer(1, 32), 3);
 */
export function integer(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`Expected an integer from ${min} to ${max}.`);
    }
    return n;
  };
}
