// Hostile values for the entry-point fuzzers, each a label and a maker: numbers that are not
// numbers or not in range, options that are not options objects, proxies around rxcuda's own
// objects, typed arrays that lie about themselves or whose memory went away, arrays with holes,
// and getters that answer differently at each read.
import fc from 'fast-check';

/** A hostile value: how a failure shows it, and a maker (called once per call drawn). */
export type Hostile = readonly [label: string, make: () => unknown];

const revoked = (): unknown => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};

/** An object whose `key` reads as each of `values` in turn, for ever. */
export function changing(key: string, values: readonly unknown[], base: object = {}): object {
  let read = 0;
  return Object.defineProperty({ ...base }, key, { get: () => values[read++ % values.length], enumerable: true });
}

/** Values that are not numbers, where a number is expected. */
export const NOT_NUMBERS: readonly Hostile[] = [
  ['NaN', () => NaN],
  ['Infinity', () => Infinity],
  ['-Infinity', () => -Infinity],
  ['Symbol()', () => Symbol('n')],
  ['4n', () => 4n],
  ["'4'", () => '4'],
  ['null', () => null],
  ['true', () => true],
  ['{ valueOf: () => 4 }', () => ({ valueOf: () => 4 })],
  ['[4]', () => [4]],
  ['a revoked proxy', revoked],
];

/** Numbers out of range for a count, an index or a size (each entry point adds its own bounds). */
export const BAD_COUNTS: readonly Hostile[] = [
  ['-1', () => -1],
  ['0.5', () => 0.5],
  ['2 ** 53', () => 2 ** 53],
  ['1e308', () => 1e308],
  ['-2 ** 31', () => -(2 ** 31)],
];

/** Non-numbers and numbers out of range for a count: what every count parameter refuses. */
export const BAD_NUMBERS: readonly Hostile[] = [...NOT_NUMBERS, ...BAD_COUNTS];

/** What options objects must not be (undefined excepted: options are optional). */
export const NOT_OPTIONS: readonly Hostile[] = [
  ['null', () => null],
  ['5', () => 5],
  ["'x'", () => 'x'],
  ['[]', () => []],
  ['Symbol()', () => Symbol('o')],
  ['a function', () => () => {}],
  ['a revoked proxy', revoked],
];

/** Values that are not functions, where a function is expected. */
export const NOT_FUNCTIONS: readonly Hostile[] = [
  ['undefined', () => undefined],
  ['null', () => null],
  ['42', () => 42],
  ["'fn'", () => 'fn'],
  ['{}', () => ({})],
  ['Symbol()', () => Symbol('f')],
];

/** Values that are not strings of a name, where one is expected (a slot's name, a subject). */
export const NOT_NAMES: readonly Hostile[] = [
  ['null', () => null],
  ['42', () => 42],
  ['Symbol()', () => Symbol('s')],
  ['{}', () => ({})],
  ["''", () => ''],
  ['[]', () => []],
];

/** A Uint32Array of `length` whose length, byteLength, byteOffset and buffer getters lie. */
export function lyingArray(length: number): Uint32Array {
  class Lying extends Uint32Array {
    override get length() {
      return 1 << 20;
    }
    override get byteLength() {
      return 4 << 20;
    }
    override get byteOffset() {
      return 4096;
    }
    override get buffer() {
      return new ArrayBuffer(4 << 20);
    }
  }
  return new Lying(length);
}

/** A Uint32Array whose buffer has been transferred away. */
export function detachedArray(length = 16): Uint32Array {
  const array = new Uint32Array(length);
  structuredClone(array.buffer, { transfer: [array.buffer] });
  return array;
}

/** A Uint32Array over a resizable buffer. */
export function resizableArray(length = 16): Uint32Array {
  const Resizable = ArrayBuffer as unknown as new (bytes: number, options: { maxByteLength: number }) => ArrayBuffer;
  return new Uint32Array(new Resizable(length * 4, { maxByteLength: length * 8 }));
}

/** Typed arrays that are not plain memory to take: detached, resizable, clamped. */
export const BAD_ARRAYS: readonly Hostile[] = [
  ['a detached Uint32Array', () => detachedArray()],
  ['a resizable Uint32Array', () => resizableArray()],
  ['a Uint8ClampedArray', () => new Uint8ClampedArray(16)],
  ['a DataView', () => new DataView(new ArrayBuffer(16))],
  ['an ArrayBuffer', () => new ArrayBuffer(16)],
];

/** A proxy around one of rxcuda's objects, with no traps: it answers `instanceof` as its target does. */
export function proxied<T extends object>(target: T): T {
  return new Proxy(target, {});
}

/** Picks one of `values`' makers and labels; `make` turns it into a call. */
export function oneOf<T>(values: readonly (readonly [string, T])[]): fc.Arbitrary<readonly [string, T]> {
  return fc.constantFrom(...values);
}
