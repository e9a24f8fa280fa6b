import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DTYPES, fromHalfBits, isDType, toHalfBits } from '../../src/index.js';

describe('toHalfBits', () => {
  it('encodes known values exactly', () => {
    expect(toHalfBits(1)).toBe(0x3c00);
    expect(toHalfBits(-2)).toBe(0xc000);
    expect(toHalfBits(65504)).toBe(0x7bff);
    expect(toHalfBits(65519)).toBe(0x7bff); // rounds down to the largest half
    expect(toHalfBits(Infinity)).toBe(0x7c00);
    expect(toHalfBits(2 ** -24)).toBe(0x0001);
    expect(toHalfBits(Number.NaN) & 0x7e00).toBe(0x7e00);
  });

  it('round-trips every finite half', () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      if ((bits & 0x7c00) === 0x7c00) continue;
      expect(toHalfBits(fromHalfBits(bits))).toBe(bits === 0x8000 ? 0x8000 : bits);
    }
  });

  it('rounds to the nearest half, and is symmetric in sign', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 65504, noNaN: true }), (x) => {
        const bits = toHalfBits(x);
        const error = Math.abs(fromHalfBits(bits) - x);
        for (const neighbour of [bits - 1, bits + 1]) {
          if (neighbour < 0 || neighbour > 0x7bff) continue;
          expect(error).toBeLessThanOrEqual(Math.abs(fromHalfBits(neighbour) - x));
        }
        if (x > 0) expect(toHalfBits(-x)).toBe(bits | 0x8000);
      }),
    );
  });

  it('breaks ties towards the even pattern', () => {
    const one = fromHalfBits(0x3c00);
    const next = fromHalfBits(0x3c01);
    expect(toHalfBits((one + next) / 2)).toBe(0x3c00);
    const after = fromHalfBits(0x3c02);
    expect(toHalfBits((next + after) / 2)).toBe(0x3c02);
  });
});

describe('DTYPES', () => {
  it('gives every element type its size and TypedArray', () => {
    expect(Object.fromEntries(Object.entries(DTYPES).map(([k, v]) => [k, v.size]))).toEqual({
      i8: 1, u8: 1, i16: 2, u16: 2, i32: 4, u32: 4, i64: 8, u64: 8, f16: 2, bf16: 2, f32: 4, f64: 8,
    });
    expect(isDType('f32')).toBe(true);
    expect(isDType('float')).toBe(false);
    expect(isDType('toString')).toBe(false);
  });
});

describe('toHalfBits and fromHalfBits', () => {
  it('refuse what is not a number, naming the argument', () => {
    for (const value of ['x', undefined, null, 1n, {}]) expect(() => toHalfBits(value as never)).toThrow(TypeError);
    expect(() => toHalfBits('x' as never)).toThrow(new TypeError('Expected `value` to be a number, got "x"'));
  });

  it("refuse a finite number beyond f16's range, which would become infinity", () => {
    for (const value of [70000, -70000, 65520, 1e40]) expect(() => toHalfBits(value)).toThrow(RangeError);
    expect(() => toHalfBits(70000)).toThrow(new RangeError("Expected `value` to be a number within f16's range (±65504), got 70000"));
  });

  it('refuse a bit pattern that is not an integer 0..65535', () => {
    expect(() => fromHalfBits(70000)).toThrow(new RangeError('Expected `bits` to be a 16-bit pattern, 0..65535, got 70000'));
    expect(() => fromHalfBits(-1)).toThrow(RangeError);
    expect(() => fromHalfBits(1.5)).toThrow(new TypeError('Expected `bits` to be an integer bit pattern, got 1.5'));
    expect(() => fromHalfBits('x' as never)).toThrow(TypeError);
  });
});
