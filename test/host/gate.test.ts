import { describe, expect, it, vi } from 'vitest';
import { Device } from '../../src/index.js';
import { Gate } from '../../src/core/host-steps.js';

describe('Gate', () => {
  it('compares its word with a value wrap-safely, and reaches nothing once freed', async () => {
    const stream = Device.host().createStream();
    const gate = new Gate(stream);
    expect(gate.reached(1)).toBe(false);
    gate.open(0xffff_fffe);
    expect([gate.reached(0xffff_fffe), gate.reached(0xffff_fffd), gate.reached(0xffff_ffff)]).toEqual([true, true, false]);
    gate.open(1); // past the wrap: 0xffff_ffff, 0 and 1 are behind it
    expect([gate.reached(0xffff_ffff), gate.reached(0), gate.reached(1), gate.reached(2)]).toEqual([true, true, true, false]);
    gate.close();
    stream.close();
    await vi.waitFor(() => expect(gate.reached(0)).toBe(false));
  });
});
