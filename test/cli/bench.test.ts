// `rxcuda bench` where it cannot run says why and exits non-zero (here: no CUDA device; from an
// installed package, where bench/ is absent, the package test checks the other reason).
import { describe, expect, it } from 'vitest';
import { hasStackTrace, rxcuda } from '../support/cli.js';
import { gpu } from '../support/gpu.js';

describe.skipIf(gpu.available)(`rxcuda bench without a GPU${gpu.available ? ' (skipped: a CUDA device is present, so the benchmarks would run)' : ''}`, () => {
  it('says that it needs a CUDA device, and why there is none, and exits 1', () => {
    const run = rxcuda(['bench']);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: rxcuda bench needs a CUDA device: .+\.\n$/);
    expect(hasStackTrace(run.stderr)).toBe(false);
  });
});
