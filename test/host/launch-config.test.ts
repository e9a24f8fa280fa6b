import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LaunchConfig } from '../../src/index.js';
import { fakeDevice } from '../support/fakes.js';
import { checkConfigFor, configMatches } from '../../src/core/kernels/launch-config.js';

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

  it('refuses holes in a dimension array as it refuses undefined, and says where they are', () => {
    // eslint-disable-next-line no-sparse-arrays
    const [middle, first, last] = [[2, , 3], [, 2], [4, 2, ,]] as unknown as [[number, number], [number, number], [number, number]];
    expect(() => new LaunchConfig({ grid: middle, block: 1 })).toThrow('Expected `grid` to be positive integers, got [2, , 3]');
    expect(() => new LaunchConfig({ grid: first, block: 1 })).toThrow('Expected `grid` to be positive integers, got [, 2]');
    expect(() => new LaunchConfig({ grid: 1, block: middle })).toThrow(TypeError);
    expect(() => new LaunchConfig({ grid: 1, block: 1, cluster: first })).toThrow(/^Expected `cluster`/);
    expect(() => new LaunchConfig({ grid: last, block: 1 })).toThrow('Expected `grid` to be positive integers, got [4, 2, ]');
    expect(new LaunchConfig({ grid: [4, 2], block: 1 }).grid).toEqual([4, 2, 1]); // a shorter array is no hole
    expect(() => new LaunchConfig({ grid: [2, undefined, 3] as never, block: 1 })).toThrow('Expected `grid` to be positive integers, got [2, undefined, 3]');
  });

  it('never matches options with a hole where it has a dimension', () => {
    const config = new LaunchConfig({ grid: [2, 1, 3], block: 1 });
    // eslint-disable-next-line no-sparse-arrays
    expect(configMatches(config, { grid: [2, , 3], block: 1 })).toBe(false);
    expect(configMatches(config, { grid: [2, 1, 3], block: 1 })).toBe(true);
  });

  it('requires the grid to be a multiple of the cluster', () => {
    expect(() => new LaunchConfig({ grid: 6, block: 32, cluster: 4 })).toThrow(RangeError);
    expect(new LaunchConfig({ grid: 8, block: 32, cluster: 4 }).cluster).toEqual([4, 1, 1]);
  });

  it('checks the device limits', () => {
    const device = fakeDevice().engine;
    expect(() => checkConfigFor(new LaunchConfig({ grid: 1, block: 2048 }), device)).toThrow(new RangeError('Expected `block` to be 1..1024 threads, got 2048'));
    expect(() => checkConfigFor(new LaunchConfig({ grid: 1, block: [1, 1, 128] }), device)).toThrow(RangeError);
    expect(() => checkConfigFor(new LaunchConfig({ grid: [1, 70000], block: 1 }), device)).toThrow(/`grid`/);
    expect(() => checkConfigFor(new LaunchConfig({ grid: 1, block: 1, sharedMem: 300_000 }), device)).toThrow(/`sharedMem`/);
    expect(() => checkConfigFor(new LaunchConfig({ grid: [2 ** 31 - 1, 65535, 65535], block: [1024] }), device)).not.toThrow();
  });

  const dim = fc.oneof(fc.integer({ min: 1, max: 3 }), fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 3 }));
  const plainOptions = fc.record(
    {
      grid: dim,
      block: dim,
      sharedMem: fc.option(fc.constantFrom(0, 16), { nil: undefined }),
      cooperative: fc.option(fc.boolean(), { nil: undefined }),
    },
    { requiredKeys: ['grid', 'block'] },
  );
  const normalized = (c: LaunchConfig) => [c.grid, c.block, c.sharedMem, c.cooperative, c.cluster];

  it('matches exactly the plain options that build an equal configuration', () => {
    fc.assert(
      fc.property(plainOptions, plainOptions, (a, b) => {
        const config = new LaunchConfig(a as never);
        const equal = JSON.stringify(normalized(config)) === JSON.stringify(normalized(new LaunchConfig(b as never)));
        expect(configMatches(config, b)).toBe(equal);
        expect(configMatches(config, a)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('matches no invalid options, and no LaunchConfig', () => {
    const config = new LaunchConfig({ grid: [4, 1, 1], block: 1, cluster: 2 });
    expect(configMatches(config, { grid: 4, block: 1, cluster: 2 })).toBe(true);
    expect(configMatches(config, { grid: 4, block: 1 })).toBe(false);
    expect(configMatches(config, { grid: [4, null], block: 1, cluster: 2 })).toBe(false);
    expect(configMatches(config, { grid: '4', block: 1, cluster: 2 })).toBe(false);
    expect(configMatches(config, { grid: [4, 1, 1, 1], block: 1, cluster: 2 })).toBe(false);
    expect(configMatches(config, { grid: 4, block: 1, cluster: 2, sharedMem: '0' })).toBe(false);
    expect(configMatches(config, null)).toBe(false);
    expect(configMatches(config, [4])).toBe(false);
    expect(configMatches(config, config)).toBe(false);
  });
});
