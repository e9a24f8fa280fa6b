import { describe, expect, it } from 'vitest';
import { wordReached } from '../../src/core/device/spin-wait.js';

describe('wordReached', () => {
  it('compares a growing word with a value wrap-safely', () => {
    expect([wordReached(0xffff_fffe, 0xffff_fffe), wordReached(0xffff_fffe, 0xffff_fffd), wordReached(0xffff_fffe, 0xffff_ffff)]).toEqual([true, true, false]);
    // Past the wrap: 0xffff_ffff, 0 and 1 are behind 1.
    expect([wordReached(1, 0xffff_ffff), wordReached(1, 0), wordReached(1, 1), wordReached(1, 2)]).toEqual([true, true, true, false]);
  });
});
