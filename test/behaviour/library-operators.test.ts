// The gemm and fft pipeline operators: values' products and transforms on their lanes, typed
// slots for the results, and refused arguments reaching the subscriber as PipelineErrors.
import { expect, it } from 'vitest';
import { firstValueFrom, lastValueFrom, map, range, toArray } from 'rxjs';
import { PipelineError, download, fft, gemm, onStreams, upload, type DeviceArray } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { streamsPerTest } from '../support/streams.js';
import { EPSILON, dft, fftBound, norm, outside, referenceGemm, upload as uploadTo, values } from '../support/libraries.js';

describeBackends('gemm and fft operators', (getDevice) => {
  const stream = streamsPerTest(getDevice);

  it('multiply each value by a matrix and transform the products, on several lanes', async () => {
    const device = getDevice();
    const [m, n, k] = [4, 32, 16];
    const weights = values('f32', k * n, 1);
    const s = stream();
    const w = uploadTo(s, 'f32', weights);
    await s.synchronized();
    const inputs = Array.from({ length: 10 }, (_, i) => values('f32', m * k, 10 + i));
    const results = await lastValueFrom(
      range(0, inputs.length).pipe(
        map((i) => Float32Array.from(inputs[i]!)),
        onStreams(device, { lanes: 3 }),
        upload((x) => x, 'x'),
        gemm((v) => ({ a: v.buffers.x, b: w, c: v.device('f32', m * n, 'y'), m, n, k })),
        fft((v) => ({ kind: 'c2c', input: v.buffers.y, output: v.device('f32', m * n, 'spectra'), shape: n / 2, batch: m })),
        download((v) => v.buffers.y, 'y'),
        download((v) => v.buffers.spectra, 'spectra'),
        toArray(),
      ),
    );
    expect(results.map((v) => v.index).sort((a, b) => a - b)).toEqual(inputs.map((_, i) => i));
    for (const v of results) {
      const product = referenceGemm({ m, n, k }, inputs[v.index]!, weights, Array(m * n).fill(0), EPSILON.f32, EPSILON.f32);
      expect(outside([...v.results.y], product.out, product.bound)).toEqual([]);
      for (let row = 0; row < m; row++) {
        const want = dft([...v.results.y.subarray(row * n, (row + 1) * n)], -1);
        const got = [...v.results.spectra.subarray(row * n, (row + 1) * n)];
        expect(outside(got, want, want.map(() => fftBound(n / 2, EPSILON.f32, norm(want))))).toEqual([]);
      }
    }
  });

  it('types the arrays they make by name as slots', async () => {
    const device = getDevice();
    const out = await firstValueFrom(
      range(0, 1).pipe(
        map(() => new Float32Array(8).fill(1)),
        onStreams(device),
        upload((x) => x, 'x'),
        gemm((v) => ({ a: v.buffers.x, b: v.buffers.x, c: v.device('f32', 4, 'y'), m: 2, n: 2, k: 4, transB: true })),
        fft((v) => ({ kind: 'r2c', input: v.buffers.y, output: v.device('f32', 8, 'half'), shape: 2, batch: 2 })),
        map((v) => {
          const [y, half]: [DeviceArray<'f32'>, DeviceArray<'f32'>] = [v.buffers.y, v.buffers.half];
          return [y.length, half.length];
        }),
      ),
    );
    expect(out).toEqual([4, 8]);
  });

  it('hand refused arguments to the subscriber as a PipelineError naming the operator and the value', async () => {
    const device = getDevice();
    const failure = await lastValueFrom(
      range(0, 3).pipe(
        map(() => new Float32Array(8)),
        onStreams(device),
        upload((x) => x, 'x'),
        gemm((v) => ({ a: v.buffers.x, b: v.buffers.x, c: v.device('f32', 4), m: 2, n: 2, k: v.index === 1 ? 5 : 4, transB: true })),
      ),
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(PipelineError);
    expect((failure as PipelineError).operator).toBe('gemm');
    expect((failure as PipelineError).index).toBe(1);
    expect((failure as PipelineError).cause).toBeInstanceOf(RangeError);
    expect(String((failure as PipelineError).cause)).toMatch(/Expected `a` to be at least 10 elements/);
  });

  it('refuse a transform kind that is not one', async () => {
    const failure = await lastValueFrom(
      range(0, 1).pipe(
        map(() => new Float32Array(8)),
        onStreams(getDevice()),
        upload((x) => x, 'x'),
        fft((v) => ({ kind: 'dct' as never, input: v.buffers.x, output: v.buffers.x, shape: 4 })),
      ),
    ).then(() => undefined, (error: unknown) => error);
    expect((failure as PipelineError).cause).toBeInstanceOf(TypeError);
    expect(String((failure as PipelineError).cause)).toContain("Expected `kind` to be 'c2c', 'r2c' or 'c2r', got \"dct\"");
  });
});
