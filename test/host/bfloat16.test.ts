// bf16, the element type of bfloat16 data (GEMM's operands): its host encoding.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromBFloat16Bits, toBFloat16Bits } from '../../src/index.js';

describe('toBFloat16Bits', () => {
  it('encodes known values exactly', () => {
    expect(toBFloat16Bits(1)).toBe(0x3f80);
    expect(toBFloat16Bits(-2)).toBe(0xc000);
    expect(toBFloat16Bits(1.5)).toBe(0x3fc0);
    expect(toBFloat16Bits(Infinity)).toBe(0x7f80);
    expect(toBFloat16Bits(Number.NaN) & 0x7fc0).toBe(0x7fc0);
  });

  it('refuses a finite number beyond the largest bf16, which would become infinity, and what is not a number', () => {
    expect(() => toBFloat16Bits(3.4e38)).toThrow(RangeError);
    expect(() => toBFloat16Bits(-1e39)).toThrow(/within bf16's range/);
    expect(() => toBFloat16Bits('1' as never)).toThrow(TypeError);
    expect(() => fromBFloat16Bits(0x10000)).toThrow(RangeError);
    expect(() => fromBFloat16Bits(1.5)).toThrow(TypeError);
  });

  it('round-trips every finite bf16', () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      if ((bits & 0x7f80) === 0x7f80) continue;
      expect(toBFloat16Bits(fromBFloat16Bits(bits))).toBe(bits);
    }
  });

  it('rounds an f32 to the nearest bf16, ties to even', () => {
    // 1 + 2^-8 lies halfway between 1 (even) and 1 + 2^-7; 1 + 3·2^-8 between 1 + 2^-7 and 1 + 2^-6 (even).
    expect(toBFloat16Bits(1 + 2 ** -8)).toBe(0x3f80);
    expect(toBFloat16Bits(1 + 3 * 2 ** -8)).toBe(0x3f82);
    fc.assert(
      fc.property(fc.float({ noNaN: true, noDefaultInfinity: true, min: Math.fround(-3e38), max: Math.fround(3e38) }), (x) => {
        const bits = toBFloat16Bits(x);
        const error = Math.abs(fromBFloat16Bits(bits) - x);
        for (const neighbour of [bits - 1, bits + 1])
          if ((neighbour & 0x7f80) !== 0x7f80 && (neighbour & 0x8000) === (bits & 0x8000))
            expect(error).toBeLessThanOrEqual(Math.abs(fromBFloat16Bits(neighbour) - x));
      }),
    );
  });
});
