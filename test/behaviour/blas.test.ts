// Blas.gemm on each backend against products computed here in f64, within the bound that
// referenceGemm states: (k + 3)·ε_sum·(|alpha|·Σ|a||b| + |beta|·|c|) + ε_C·|C| per element, with
// ε_sum the epsilon of the type the products are summed in (f32, or f64 for f64) and ε_C that of
// C's type. The sizes are odd on purpose, so that no kernel's tile fits them evenly.
import { expect, it } from 'vitest';
import { Blas, type GemmDType } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { streamsPerTest } from '../support/streams.js';
import { EPSILON, SUM_EPSILON, download, outside, referenceGemm, upload, values, type Shape } from '../support/libraries.js';

const TYPES: readonly GemmDType[] = ['f32', 'f16', 'bf16', 'f64'];

describeBackends('Blas.gemm', (getDevice) => {
  const stream = streamsPerTest(getDevice);

  /** Runs one GEMM of type `t` (C of `out`) and compares it with the reference. */
  async function check(t: GemmDType, shape: Shape, out: GemmDType = t, sizes?: { a: number; b: number; c: number }) {
    const s = stream();
    const { m, n, k, transA, transB, batch = 1 } = shape;
    const lengthA = sizes?.a ?? batch * m * k, lengthB = sizes?.b ?? batch * k * n, lengthC = sizes?.c ?? batch * m * n;
    const [a, b, c] = [values(t, lengthA, 1), values(t, lengthB, 2), values(out, lengthC, 3)];
    const [da, db, dc] = [upload(s, t, a), upload(s, t, b), upload(s, out, c)];
    s.device.blas.gemm(s, da, db, dc as never, shape);
    const got = await download(s, dc);
    const want = referenceGemm(shape, a, b, c, SUM_EPSILON(t), EPSILON[out]);
    expect(outside(got, want.out, want.bound), `${t} ${transA ? 'T' : 'N'}${transB ? 'T' : 'N'}`).toEqual([]);
    return { got, want };
  }

  for (const t of TYPES)
    for (const [transA, transB] of [[false, false], [true, false], [false, true], [true, true]] as const)
      it(`multiplies ${t} matrices, A${transA ? 'ᵀ' : ''}·B${transB ? 'ᵀ' : ''}, within the stated bound`, async () => {
        await check(t, { m: 37, n: 29, k: 53, transA, transB });
      });

  for (const t of TYPES)
    it(`runs a strided batch of ${t} products, each its own`, async () => {
      await check(t, { m: 17, n: 24, k: 33, batch: 5 });
    });

  it('keeps the error within the bound as k grows (k = 1000)', async () => {
    await check('f32', { m: 16, n: 16, k: 1000 });
  });

  it('takes one A for every batch with strideA 0', async () => {
    await check('f32', { m: 8, n: 12, k: 20, batch: 4, strideA: 0 }, 'f32', { a: 8 * 20, b: 4 * 20 * 12, c: 4 * 8 * 12 });
  });

  it('scales the product by alpha and adds beta times C', async () => {
    await check('f32', { m: 21, n: 19, k: 40, alpha: -0.5, beta: 2 });
  });

  it('writes C without reading it when beta is 0, NaN included', async () => {
    const s = stream();
    const [a, b] = [values('f32', 6 * 7, 4), values('f32', 7 * 5, 5)];
    const c = s.alloc('f32', 6 * 5);
    s.fill(c, NaN);
    s.device.blas.gemm(s, upload(s, 'f32', a), upload(s, 'f32', b), c, { m: 6, n: 5, k: 7 });
    const got = await download(s, c);
    const want = referenceGemm({ m: 6, n: 5, k: 7 }, a, b, Array(30).fill(0), EPSILON.f32, EPSILON.f32);
    expect(outside(got, want.out, want.bound)).toEqual([]);
  });

  for (const t of ['f16', 'bf16'] as const)
    it(`sums ${t} operands into an f32 C`, async () => {
      await check(t, { m: 33, n: 18, k: 65, beta: 1 }, 'f32');
    });

  it('reads submatrices through leading dimensions wider than their rows', async () => {
    // A is the left 40 columns of a 30 × 64 matrix, B the top-left 40 × 20 of a 40 × 32 one, C 30 × 20 of 30 × 25.
    const { got, want } = await check('f32', { m: 30, n: 20, k: 40, lda: 64, ldb: 32, ldc: 25, beta: 1 }, 'f32', { a: 30 * 64, b: 40 * 32, c: 30 * 25 });
    // C's columns past n are untouched.
    for (let i = 0; i < 30; i++) for (let j = 20; j < 25; j++) expect(got[i * 25 + j]).toBe(want.out[i * 25 + j]);
  });

  it('is the same object as Blas.for(device)', () => {
    expect(getDevice().blas).toBe(Blas.for(getDevice()));
  });
});
