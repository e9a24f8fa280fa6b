// The stand-ins of rxcuda/internal that the benchmarks' host studies time rxcuda's JavaScript
// through (bench/launch-path, bench/study/library-path): a launch and library calls over natives
// that do nothing. They build on engines the library changes, so a change that breaks them must
// fail here rather than in a benchmark nobody runs in the suite. Each checks its arguments as a
// real call does and takes what a real call takes.
import { describe, expect, it } from 'vitest';
import { standInLaunch, standInLibraries } from '../../src/internal.js';

describe('rxcuda/internal stand-ins for the benchmarks', () => {
  it('launches through the whole launch path, and refuses what a launch refuses', () => {
    const { kernel, stream, config, args } = standInLaunch(['u32', 'f32', 'ptr', 'ptr'], (array) => [1024, 2.5, array, array]);
    for (let i = 0; i < 3; i++) kernel.engine.launchOn(stream, config, args as never);
    expect(() => kernel.engine.launchOn(stream, config, [1024] as never)).toThrow(TypeError);
    expect(() => kernel.engine.launchOn(stream, { grid: 1, block: 4096 }, args as never)).toThrow('Expected `block` to be 1..1024 threads, got 4096');
  });

  it('calls cuBLAS and cuFFT through the faces and engines, and refuses what they refuse', async () => {
    const { blas, fft, stream, arrays, ready } = standInLibraries(2 * 4096);
    const [a, b, c] = arrays;
    fft.c2c(stream, a, b, { shape: 4096 });
    await ready();
    for (let i = 0; i < 3; i++) {
      blas.gemm(stream, a, b, c, { m: 64, n: 64, k: 64 });
      fft.c2c(stream, a, b, { shape: 4096 });
    }
    expect(() => blas.gemm(stream, a, b, c, { m: 64, n: 64, k: 64, mystery: 1 } as never)).toThrow(/Unknown option `mystery`/);
    expect(() => blas.gemm(stream, a, b, c, { m: 1024, n: 1024, k: 1024 })).toThrow(RangeError);
  });
});
