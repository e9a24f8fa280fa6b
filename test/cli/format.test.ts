import { describe, expect, it } from 'vitest';
import { bytes, stageLabel } from '../../src/cli/format.js';

describe('bytes', () => {
  it('writes sizes with at most three significant digits and no trailing zeros', () => {
    expect(bytes(0)).toBe('0 bytes');
    expect(bytes(1000)).toBe('1000 bytes');
    expect(bytes(4000)).toBe('3.91 KiB');
    expect(bytes(16384)).toBe('16 KiB');
    expect(bytes(1 << 20)).toBe('1 MiB');
    expect(bytes(1.5 * 2 ** 20)).toBe('1.5 MiB');
    expect(bytes(123.456 * 2 ** 20)).toBe('123 MiB');
    expect(bytes(141 * 2 ** 30)).toBe('141 GiB');
  });
});

describe('stageLabel', () => {
  it('names device stages as they are and host steps as host steps', () => {
    expect(stageLabel('device', 'invert')).toBe('invert');
    expect(stageLabel('host', 'host')).toBe('host step');
  });
});
