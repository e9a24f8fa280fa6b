// Bad shapes, element types, strides, closed arrays and streams are refused by gemm and the
// transforms with the argument named, and nothing is enqueued: the output reads back unchanged.
import { expect, it } from 'vitest';
import { Device, type DeviceArray, type Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { streamsPerTest } from '../support/streams.js';
import { download } from '../support/libraries.js';

const SENTINEL = 7;

describeBackends('library arguments', (getDevice, backend) => {
  const stream = streamsPerTest(getDevice);

  /** Arrays for a 4 × 6 × 5 product, C filled with the sentinel. */
  function gemmArrays(s: Stream) {
    const [a, b, c] = [s.alloc('f32', 4 * 5), s.alloc('f32', 5 * 6), s.alloc('f32', 4 * 6)];
    s.fill(a, 1);
    s.fill(b, 1);
    s.fill(c, SENTINEL);
    return { a, b, c };
  }

  /** Expects `call` to throw `type` with a message matching `message`, and `c` to be unchanged. */
  async function refused(s: Stream, c: DeviceArray<'f32'>, call: () => void, type: ErrorConstructor, message: RegExp) {
    expect(call).toThrow(type);
    expect(call).toThrow(message);
    expect(await download(s, c)).toEqual(Array(c.length).fill(SENTINEL));
  }

  const shape = { m: 4, n: 6, k: 5 };
  const cases: [string, (s: Stream, arrays: ReturnType<typeof gemmArrays>) => void, ErrorConstructor, RegExp][] = [
    ['a C too short for m × n', (s, { a, b }) => s.device.blas.gemm(s, a, b, s.alloc('f32', 23), shape), RangeError, /Expected `c` to be at least 24 elements \(C is m × n: 4 × 6\), got a DeviceArray of 23/],
    ['an A too short for m × k', (s, { b, c }) => s.device.blas.gemm(s, s.alloc('f32', 19), b, c, shape), RangeError, /Expected `a` to be at least 20 elements/],
    ['a leading dimension below the columns', (s, { a, b, c }) => s.device.blas.gemm(s, a, b, c, { ...shape, lda: 4 }), RangeError, /Expected `lda` to be an integer in 5\.\.2147483647, got 4/],
    ['a B of another element type', (s, { a, c }) => s.device.blas.gemm(s, a, s.alloc('f16', 30) as never, c, shape), TypeError, /Expected `b` to be a DeviceArray of f32, as `a` is, got a DeviceArray of f16/],
    ['an f16 C for f32 operands', (s, { a, b }) => s.device.blas.gemm(s, a, b, s.alloc('f16', 24) as never, shape), TypeError, /Expected `c` to be a DeviceArray of f32, as `a` is, got a DeviceArray of f16/],
    ['integers', (s, { c }) => s.device.blas.gemm(s, s.alloc('i32', 20) as never, s.alloc('i32', 30) as never, c as never, shape), TypeError, /Expected `a` to be a DeviceArray of f16, bf16, f32 or f64, got a DeviceArray of i32/],
    ['host memory', (s, { b, c }) => s.device.blas.gemm(s, s.device.allocHost('f32', 20) as never, b, c, shape), TypeError, /Expected `a` to be a DeviceArray of .*, got a HostArray/],
    ['a closed array', (s, { a, b, c }) => {
      a.close();
      s.device.blas.gemm(s, a, b, c, shape);
    }, TypeError, /Expected `a` to be an open DeviceArray, got a closed DeviceArray/],
    ['m of 0', (s, { a, b, c }) => s.device.blas.gemm(s, a, b, c, { ...shape, m: 0 }), RangeError, /Expected `m` to be an integer in 1\.\.2147483647, got 0/],
    ['a fractional k', (s, { a, b, c }) => s.device.blas.gemm(s, a, b, c, { ...shape, k: 2.5 }), TypeError, /Expected `k` to be an integer in 1\.\.2147483647, got 2\.5/],
    ['batches of C that overlap', (s, { a, b }) => s.device.blas.gemm(s, a, b, s.alloc('f32', 48), { ...shape, batch: 2, strideA: 0, strideB: 0, strideC: 10 }), RangeError, /Expected `strideC` to be an integer in 24\.\./],
    ['a C that overlaps A', (s, { b, c }) => s.device.blas.gemm(s, c.subarray(0, 20), b, c, shape), RangeError, /Expected `c` to be memory apart from `a`, got memory that overlaps it/],
    ['an infinite alpha', (s, { a, b, c }) => s.device.blas.gemm(s, a, b, c, { ...shape, alpha: Infinity }), RangeError, /Expected `alpha` to be a finite number, got Infinity/],
    ['a string transB', (s, { a, b, c }) => s.device.blas.gemm(s, a, b, c, { ...shape, transB: 'yes' as never }), TypeError, /Expected `transB` to be a boolean, got "yes"/],
    ['no options', (s, { a, b, c }) => s.device.blas.gemm(s, a, b, c, undefined as never), TypeError, /Expected `options` to be an options object with m, n and k, got undefined/],
    ['null options', (s, { a, b, c }) => s.device.blas.gemm(s, a, b, c, null as never), TypeError, /Expected `options` to be an options object with m, n and k, got null/],
    // Only undefined is "not given": null is refused as any other value of the wrong type.
    ['a null alpha', (s, { a, b, c }) => s.device.blas.gemm(s, a, b, c, { ...shape, alpha: null as never }), TypeError, /Expected `alpha` to be a finite number, got null/],
    ['a null beta', (s, { a, b, c }) => s.device.blas.gemm(s, a, b, c, { ...shape, beta: null as never }), TypeError, /Expected `beta` to be a finite number, got null/],
    ['a null transB', (s, { a, b, c }) => s.device.blas.gemm(s, a, b, c, { ...shape, transB: null as never }), TypeError, /Expected `transB` to be a boolean, got null/],
    ['a null lda', (s, { a, b, c }) => s.device.blas.gemm(s, a, b, c, { ...shape, lda: null as never }), TypeError, /Expected `lda` to be an integer in 5\.\.2147483647, got null/],
    ['a null batch', (s, { a, b, c }) => s.device.blas.gemm(s, a, b, c, { ...shape, batch: null as never }), TypeError, /Expected `batch` to be an integer in 1\.\.2147483647, got null/],
    ['a null strideC', (s, { a, b, c }) => s.device.blas.gemm(s, a, b, c, { ...shape, strideC: null as never }), TypeError, /Expected `strideC` to be an integer in 0\.\.\d+, got null/],
    ['a stream that is not one', (s, { a, b, c }) => s.device.blas.gemm({} as never, a, b, c, shape), TypeError, /Expected `stream` to be a Stream/],
    ['a closed stream', (s, { a, b, c }) => {
      const closed = s.device.createStream();
      closed.close();
      s.device.blas.gemm(closed, a, b, c, shape);
    }, TypeError, /Expected `stream` to be open, got a closed Stream/],
  ];
  for (const [what, call, type, message] of cases)
    it(`refuses a gemm with ${what}, enqueuing nothing`, async () => {
      const s = stream();
      const arrays = gemmArrays(s);
      await refused(s, arrays.c, () => call(s, arrays), type, message);
    });

  it.skipIf(backend !== 'host')('refuses arrays of another device, enqueuing nothing', async () => {
    const [one, two] = Device.hosts(2);
    const s = one!.createStream();
    const other = two!.createStream();
    const arrays = gemmArrays(s);
    await refused(s, arrays.c, () => one!.blas.gemm(s, arrays.a, other.alloc('f32', 30), arrays.c, shape), RangeError, /Expected `b` to be memory of the host device, got memory of host device 1/);
    await refused(s, arrays.c, () => two!.blas.gemm(s, arrays.a, arrays.b, arrays.c, shape), RangeError, /Expected `stream` to be a stream of host device 1, got a stream of the host device/);
    s.close();
    other.close();
  });

  const fftCases: [string, (s: Stream, out: DeviceArray<'f32'>) => void, ErrorConstructor, RegExp][] = [
    ['a size of 0', (s, out) => s.device.fft.c2c(s, s.alloc('f32', 64), out, { shape: 0 }), RangeError, /Expected `shape` to be an integer in 1\.\.2147483647, got 0/],
    ['4 dimensions', (s, out) => s.device.fft.c2c(s, s.alloc('f32', 64), out, { shape: [2, 2, 2, 2] }), TypeError, /Expected `shape` to be a size or an array of 1 to 3 sizes, got \[2, 2, 2, 2\]/],
    ['a fractional size', (s, out) => s.device.fft.c2c(s, s.alloc('f32', 64), out, { shape: [4, 1.5] }), TypeError, /Expected `shape\[1\]` to be an integer/],
    ['an output too short', (s, out) => s.device.fft.c2c(s, s.alloc('f32', 128), out, { shape: 64 }), RangeError, /Expected `output` to be at least 128 elements \(64 complex values, interleaved\), got a DeviceArray of 64/],
    ['an input too short for its batch', (s, out) => s.device.fft.r2c(s, s.alloc('f32', 100), out, { shape: 62, batch: 2 }), RangeError, /Expected `input` to be at least 124 elements \(124 reals: 2 × 62\), got a DeviceArray of 100/],
    ['data of two element types', (s, out) => s.device.fft.c2c(s, s.alloc('f64', 64) as never, out as never, { shape: 32 }), TypeError, /Expected `output` to be a DeviceArray of f64, as `input` is, got a DeviceArray of f32/],
    ['data of f16', (s, out) => s.device.fft.c2c(s, s.alloc('f16', 64) as never, out as never, { shape: 32 }), TypeError, /Expected `input` to be a DeviceArray of f32 or f64, got a DeviceArray of f16/],
    ['misaligned complex data', (s, out) => s.device.fft.c2c(s, s.alloc('f32', 66).subarray(1, 65), out, { shape: 32 }), RangeError, /Expected `input` to be aligned to 8 bytes \(a complex f32\), got memory 4 bytes past/],
    ['a real output over its complex input', (s, out) => s.device.fft.c2r(s, out.subarray(0, 34), out.subarray(16, 48), { shape: 32 }), RangeError, /Expected `output` to be memory apart from `input`, got memory that overlaps it/],
    ['a direction that is neither', (s, out) => s.device.fft.c2c(s, s.alloc('f32', 64), out, { shape: 32, direction: 'backward' as never }), TypeError, /Expected `direction` to be 'forward' or 'inverse', got "backward"/],
    ['a batch of 0', (s, out) => s.device.fft.c2c(s, s.alloc('f32', 64), out, { shape: 32, batch: 0 }), RangeError, /Expected `batch` to be an integer in 1\.\.2147483647, got 0/],
    ['null options', (s, out) => s.device.fft.c2c(s, s.alloc('f32', 64), out, null as never), TypeError, /Expected `options` to be an options object with the shape, got null/],
    ['a null batch', (s, out) => s.device.fft.c2c(s, s.alloc('f32', 64), out, { shape: 32, batch: null as never }), TypeError, /Expected `batch` to be an integer in 1\.\.2147483647, got null/],
    ['a null direction', (s, out) => s.device.fft.c2c(s, s.alloc('f32', 64), out, { shape: 32, direction: null as never }), TypeError, /Expected `direction` to be 'forward' or 'inverse', got null/],
    ['a null shape', (s, out) => s.device.fft.r2c(s, s.alloc('f32', 64), out, { shape: null as never }), TypeError, /Expected `shape` to be a size or an array of 1 to 3 sizes, got null/],
    ['a null batch of a real transform', (s, out) => s.device.fft.r2c(s, s.alloc('f32', 64), out, { shape: 32, batch: null as never }), TypeError, /Expected `batch` to be an integer in 1\.\.2147483647, got null/],
    ['a closed input', (s, out) => {
      const input = s.alloc('f32', 64);
      input.close();
      s.device.fft.c2c(s, input, out, { shape: 32 });
    }, TypeError, /Expected `input` to be an open DeviceArray, got a closed DeviceArray/],
  ];
  for (const [what, call, type, message] of fftCases)
    it(`refuses a transform with ${what}, enqueuing nothing`, async () => {
      const s = stream();
      const out = s.alloc('f32', 64);
      s.fill(out, SENTINEL);
      await refused(s, out, () => call(s, out), type, message);
    });
});
