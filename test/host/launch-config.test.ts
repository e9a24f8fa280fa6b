import { describe, expect, it } from 'vitest';
import { LaunchConfig } from '../../src/index.js';
import { fakeDevice } from '../support/fakes.js';

describe('LaunchConfig', () => {
  it('fills missing dimensions with 1', () => {
    const config = new LaunchConfig({ grid: 4, block: [32, 2] });
    expect([config.grid, config.block, config.sharedMem, config.cooperative]).toEqual([[4, 1, 1], [32, 2, 1], 0, false]);
    expect(config.threadsPerBlock).toBe(64);
  });

  it('is immutable', () => {
    const config = new LaunchConfig({ grid: 1, block: 1 });
    expect(() => ((config as { sharedMem: number }).sharedMem = 5)).toThrow(TypeError);
    expect(() => (config.grid as unknown as number[]).push(1)).toThrow(TypeError);
  });

  it('rejects zero, negative and fractional dimensions, naming them', () => {
    expect(() => new LaunchConfig({ grid: [0, 1, 1], block: 1 })).toThrow(new RangeError('Expected `grid` to be positive integers, got [0, 1, 1]'));
    expect(() => new LaunchConfig({ grid: 1, block: 1.5 })).toThrow(new TypeError('Expected `block` to be positive integers, got 1.5'));
    expect(() => new LaunchConfig({ grid: [1, 2, 3, 4] as never, block: 1 })).toThrow(TypeError);
    expect(() => new LaunchConfig({ grid: '4' as never, block: 1 })).toThrow(/Expected `grid`/);
    expect(() => new LaunchConfig({ grid: 1, block: 1, sharedMem: -1 })).toThrow(RangeError);
    expect(() => new LaunchConfig({ grid: 1, block: 1, cooperative: 1 as never })).toThrow(TypeError);
  });

  it('requires the grid to be a multiple of the cluster', () => {
    expect(() => new LaunchConfig({ grid: 6, block: 32, cluster: 4 })).toThrow(RangeError);
    expect(new LaunchConfig({ grid: 8, block: 32, cluster: 4 }).cluster).toEqual([4, 1, 1]);
  });

  it('checks the device limits', () => {
    const device = fakeDevice();
    expect(() => new LaunchConfig({ grid: 1, block: 2048 }).checkFor(device)).toThrow(new RangeError('Expected `block` to be 1..1024 threads, got 2048'));
    expect(() => new LaunchConfig({ grid: 1, block: [1, 1, 128] }).checkFor(device)).toThrow(RangeError);
    expect(() => new LaunchConfig({ grid: [1, 70000], block: 1 }).checkFor(device)).toThrow(/`grid`/);
    expect(() => new LaunchConfig({ grid: 1, block: 1, sharedMem: 300_000 }).checkFor(device)).toThrow(/`sharedMem`/);
    expect(() => new LaunchConfig({ grid: [2 ** 31 - 1, 65535, 65535], block: [1024] }).checkFor(device)).not.toThrow();
  });
});
