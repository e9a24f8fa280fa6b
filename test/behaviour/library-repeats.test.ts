// A library call repeated with the same stream and arrays (a loop's) is checked once: these tests
// hold that what changed in between still counts: options changed in place, an array or the
// stream closed, the plan cache cleared.
import { expect, it } from 'vitest';
import { lastValueFrom, map, range } from 'rxjs';
import { PipelineError, fft, gemm, onStreams, type Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { streamsPerTest } from '../support/streams.js';
import { download } from '../support/libraries.js';

describeBackends('library calls repeated', (getDevice) => {
  const stream = streamsPerTest(getDevice);

  /** A 4 × 5 A and a 5 × 6 B of ones: each element of A·B is 5. */
  function ones(s: Stream) {
    const [a, b, c] = [s.alloc('f32', 4 * 5), s.alloc('f32', 5 * 6), s.alloc('f32', 4 * 6)];
    s.fill(a, 1);
    s.fill(b, 1);
    return { a, b, c };
  }

  it('reads a gemm\'s options again when the same object comes back changed', async () => {
    const s = stream();
    const { a, b, c } = ones(s);
    const options = { m: 4, n: 6, k: 5, alpha: 1 };
    s.device.blas.gemm(s, a, b, c, options);
    expect(await download(s, c)).toEqual(Array(24).fill(5));
    options.alpha = 2;
    s.device.blas.gemm(s, a, b, c, options);
    expect(await download(s, c)).toEqual(Array(24).fill(10));
  });

  it('checks a gemm\'s shape again when it changes between calls on the same arrays', async () => {
    const s = stream();
    const { a, b, c } = ones(s);
    const options: { m: number; n: number; k: number } = { m: 4, n: 6, k: 5 };
    s.device.blas.gemm(s, a, b, c, options);
    options.m = 5; // A holds 4 rows only
    expect(() => s.device.blas.gemm(s, a, b, c, options)).toThrow(/Expected `a` to be at least 25 elements/);
    options.m = 2;
    s.fill(c, 0);
    s.device.blas.gemm(s, a, b, c, options);
    expect(await download(s, c)).toEqual([...Array(12).fill(5), ...Array(12).fill(0)]);
  });

  it('checks the arrays of a gemm whose options were checked before, as a pipeline\'s next value', async () => {
    const s = stream();
    const { a, b, c } = ones(s);
    const options = { m: 4, n: 6, k: 5 };
    s.device.blas.gemm(s, a, b, c, options);
    expect(() => s.device.blas.gemm(s, a, b, s.alloc('f32', 23), options)).toThrow(/Expected `c` to be at least 24 elements/);
    expect(() => s.device.blas.gemm(s, a, s.alloc('f16', 30) as never, c, options)).toThrow(/Expected `b` to be a DeviceArray of f32/);
    const other = s.alloc('f32', 24);
    s.device.blas.gemm(s, a, b, other, { ...options, alpha: 2 });
    s.device.blas.gemm(s, a, b, c, { ...options, alpha: 2 });
    expect([await download(s, other), await download(s, c)]).toEqual([Array(24).fill(10), Array(24).fill(10)]);
  });

  it('refuses a repeated gemm once one of its arrays is closed, leaving C as it was', async () => {
    const s = stream();
    const { a, b, c } = ones(s);
    const options = { m: 4, n: 6, k: 5 };
    s.device.blas.gemm(s, a, b, c, options);
    b.close();
    expect(() => s.device.blas.gemm(s, a, b, c, { ...options, alpha: 3 })).toThrow(/Expected `b` to be an open DeviceArray, got a closed DeviceArray/);
    expect(() => s.device.blas.gemm(s, a, b, c, options)).toThrow(/Expected `b` to be an open DeviceArray, got a closed DeviceArray/);
    expect(await download(s, c)).toEqual(Array(24).fill(5));
  });

  it('refuses a repeated gemm and transform once their stream is closed', () => {
    const s = getDevice().createStream();
    const { a, b, c } = ones(s);
    const options = { m: 4, n: 6, k: 5 };
    const [x, y] = [s.alloc('f32', 16), s.alloc('f32', 16)];
    s.device.blas.gemm(s, a, b, c, options);
    s.device.fft.c2c(s, x, y, { shape: 8 });
    s.close();
    expect(() => s.device.blas.gemm(s, a, b, c, options)).toThrow(/Expected `stream` to be open, got a closed Stream/);
    expect(() => s.device.fft.c2c(s, x, y, { shape: 8 })).toThrow(/Expected `stream` to be open, got a closed Stream/);
  });

  it('refuses a misspelt gemm option on a repeated call as on the first, leaving C as it was', async () => {
    const s = stream();
    const { a, b, c } = ones(s);
    const options = { m: 4, n: 6, k: 5 };
    s.device.blas.gemm(s, a, b, c, options);
    const misspelt = { ...options, tranB: true }; // the values checked before, and a key more
    expect(() => s.device.blas.gemm(s, a, b, c, misspelt as never)).toThrow(new TypeError('Unknown option `tranB`; did you mean `transB`?'));
    Object.assign(options, { alhpa: 2 }); // added in place to the object checked before
    s.fill(c, 0);
    expect(() => s.device.blas.gemm(s, a, b, c, options)).toThrow(new TypeError('Unknown option `alhpa`; did you mean `alpha`?'));
    expect(await download(s, c)).toEqual(Array(24).fill(0));
  });

  it('refuses a misspelt transform option on a repeated call as on the first, leaving the output as it was', async () => {
    const s = stream();
    const { x, y } = impulse(s);
    s.device.fft.c2c(s, x, y, { shape: 8 });
    expect(await download(s, y)).toEqual(flat(16));
    s.fill(y, -1);
    expect(() => s.device.fft.c2c(s, x, y, { shape: 8, directon: 'inverse' } as never)).toThrow(new TypeError('Unknown option `directon`; did you mean `direction`?'));
    const [real, spectrum] = [s.alloc('f32', 8), s.alloc('f32', 10)];
    s.fill(real, 1);
    s.device.fft.r2c(s, real, spectrum, { shape: 8 });
    expect(() => s.device.fft.r2c(s, real, spectrum, { shape: 8, direction: 'forward' } as never)).toThrow(/Unknown option `direction`; the options are `shape`, `batch`/);
    expect(await download(s, y)).toEqual(Array(16).fill(-1));
  });

  it('refuses a misspelt option that the gemm and fft operators give for a later value on the same arrays', async () => {
    const s = stream();
    const { a, b, c } = ones(s);
    const [x, y] = [s.alloc('f32', 16), s.alloc('f32', 16)];
    await s.synchronized();
    const run = (operator: 'gemm' | 'fft') =>
      lastValueFrom(
        range(0, 3).pipe(
          onStreams(s.device, { lanes: 1 }),
          operator === 'gemm'
            ? gemm((v) => ({ a, b, c, m: 4, n: 6, k: 5, ...(v.index === 1 ? { tranB: true } : {}) }))
            : fft((v) => ({ kind: 'c2c', input: x, output: y, shape: 8, ...(v.index === 1 ? { directon: 'inverse' } : {}) })),
          map((v) => v.index),
        ),
      ).then(() => undefined, (error: unknown) => error as PipelineError);
    const [product, transform] = [await run('gemm'), await run('fft')];
    expect([product?.operator, product?.index, String(product?.cause)]).toEqual(['gemm', 1, 'TypeError: Unknown option `tranB`; did you mean `transB`?']);
    expect([transform?.operator, transform?.index, String(transform?.cause)]).toEqual(['fft', 1, 'TypeError: Unknown option `directon`; did you mean `direction`?']);
  });

  /** An impulse of 16 interleaved values (8 complex), and an output of -1s. */
  function impulse(s: Stream) {
    const [x, y] = [s.alloc('f32', 16), s.alloc('f32', 16)];
    s.fill(x, 0);
    s.fill(x.subarray(0, 1), 1);
    s.fill(y, -1);
    return { x, y };
  }
  const flat = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 1 : 0)); // the impulse's spectrum

  it('transforms the new size when a shape array is changed in place between calls', async () => {
    const s = stream();
    const { x, y } = impulse(s);
    const options = { shape: [8] };
    s.device.fft.c2c(s, x, y, options);
    expect(await download(s, y)).toEqual(flat(16));
    s.fill(y, -1);
    options.shape[0] = 4;
    s.device.fft.c2c(s, x, y, options);
    expect(await download(s, y)).toEqual([...flat(8), ...Array(8).fill(-1)]);
  });

  it('transforms in the direction given when the same options object changes it', async () => {
    const s = stream();
    const [x, y] = [s.alloc('f32', 8), s.alloc('f32', 8)];
    s.fill(x, 0);
    s.fill(x.subarray(2, 3), 1); // x₁ = 1 of 4 points: X_k = e^∓2πi·k/4
    const rounded = async () => (await download(s, y)).map((v) => Math.round(v * 1e6) / 1e6 + 0);
    const options: { shape: number; direction: 'forward' | 'inverse' } = { shape: 4, direction: 'forward' };
    s.device.fft.c2c(s, x, y, options);
    expect(await rounded()).toEqual([1, 0, 0, -1, -1, 0, 0, 1]);
    options.direction = 'inverse';
    s.device.fft.c2c(s, x, y, options);
    expect(await rounded()).toEqual([1, 0, 0, 1, -1, 0, 0, -1]);
  });

  it('refuses a repeated transform once its output is closed', async () => {
    const s = stream();
    const { x, y } = impulse(s);
    s.device.fft.c2c(s, x, y, { shape: 8 });
    const kept = await download(s, y);
    y.close();
    expect(() => s.device.fft.c2c(s, x, y, { shape: 8 })).toThrow(/Expected `output` to be an open DeviceArray, got a closed DeviceArray/);
    expect(kept).toEqual(flat(16));
  });

  it('makes the plan again for a repeated transform after clearPlans', async () => {
    const s = stream();
    const { x, y } = impulse(s);
    const fft = s.device.fft;
    fft.c2c(s, x, y, { shape: 8 });
    fft.clearPlans();
    expect(fft.cachedPlans).toBe(0);
    s.fill(y, -1);
    fft.c2c(s, x, y, { shape: 8 });
    expect(fft.cachedPlans).toBe(1);
    expect(await download(s, y)).toEqual(flat(16));
  });
});
