// Entry points of the libraries for the fuzzer: device.blas.gemm, device.fft.c2c, r2c and c2r,
// and the gemm and fft operators. Valid calls are checked against products and transforms
// computed here in f64 (within the bounds the library tests state); invalid ones are refused,
// also when they repeat a valid call's arrays and option values (the calls' fast paths).
import fc from 'fast-check';
import { lastValueFrom, of, toArray, type Observable } from 'rxjs';
import { Blas, Fft, download, fft, gemm, onStreams, upload, type DeviceArray, type Stream, type Work } from '../../src/index.js';
import type { FuzzWorld } from './fuzz-env.js';
import { either, invalid, valid, type EntryPoint } from './fuzz-harness.js';
import { NOT_FUNCTIONS, NOT_NUMBERS, NOT_OPTIONS, changing, proxied, type Hostile } from './fuzz-hostile.js';
import { hostile } from './fuzz-stream-entries.js';
import { EPSILON, dft, fftBound, norm, outside, referenceGemm, upload as uploadTo, values } from './libraries.js';

/** The entry points {@link libraryEntries} fuzzes, in order. */
export const LIBRARY_ENTRIES = ['Blas.for', 'Fft.for', 'Blas.gemm', 'Fft.c2c', 'Fft.r2c', 'Fft.c2r', 'gemm', 'fft'];

type F32 = DeviceArray<'f32'>;
type AnyWork = Work<any, any, any>;

/** Sizes of transforms, with squares of primes above 61 (67², 71²: the host device's Bluestein road). */
const SIZES = [1, 2, 3, 5, 8, 12, 16, 17, 64, 97, 4489, 5041];
const MAX_POINTS = 5041;

/** The arrays the library calls use, with what they hold. */
export interface LibraryArrays {
  readonly a: F32; readonly b: F32; readonly c: F32; readonly av: number[]; readonly bv: number[];
  /** Complex signals of MAX_POINTS × 2 values (`sv` holds them) and an output as large. */
  readonly signal: F32; readonly sv: number[]; readonly out: F32; readonly back: F32; readonly f64: DeviceArray<'f64'>;
  close(): void;
}

export function libraryArrays(stream: Stream): LibraryArrays {
  const av = values('f32', 64, 1), bv = values('f32', 64, 2), sv = values('f32', 2 * MAX_POINTS, 3);
  const arrays = {
    a: uploadTo(stream, 'f32', av), b: uploadTo(stream, 'f32', bv), c: stream.alloc('f32', 64), av, bv,
    signal: uploadTo(stream, 'f32', sv), sv, out: stream.alloc('f32', 2 * MAX_POINTS + 2), back: stream.alloc('f32', 2 * MAX_POINTS), f64: stream.alloc('f64', 2 * MAX_POINTS),
  };
  return { ...arrays, close: () => [arrays.a, arrays.b, arrays.c, arrays.signal, arrays.out, arrays.back, arrays.f64].forEach((m) => m.close()) };
}

/** Throws unless `got` is within the bounds of `want`. */
function near(what: string, got: readonly number[], want: readonly number[], bound: readonly number[]): void {
  const bad = outside(got, want, bound);
  if (bad.length > 0) throw new Error(`${what}: ${bad.join('; ')}`);
}

/** What a valid call's shape is drawn from: half the time the one the invalid calls repeat. */
const SHAPE = { m: 2, n: 4, k: 4 };
const shapes = fc.oneof(fc.constant(SHAPE), fc.record({ m: fc.integer({ min: 1, max: 8 }), n: fc.integer({ min: 1, max: 8 }), k: fc.integer({ min: 1, max: 8 }) }));

/** Options no GEMM of a, b, c takes (beside the shape the valid calls use most). */
const BAD_GEMM_OPTIONS: readonly Hostile[] = [
  ...NOT_OPTIONS,
  ['{ ...SHAPE, transa: true } (misspelt)', () => ({ ...SHAPE, transa: true })],
  ['{ ...SHAPE, Alpha: 2 } (misspelt)', () => ({ ...SHAPE, Alpha: 2 })],
  ['{ m: 2, n: 4 }', () => ({ m: 2, n: 4 })],
  ['{ ...SHAPE, m: 9 } (A too short)', () => ({ ...SHAPE, m: 9, k: 8 })],
  ['{ ...SHAPE, lda: 2 }', () => ({ ...SHAPE, lda: 2 })],
  ['{ ...SHAPE, batch: 0 }', () => ({ ...SHAPE, batch: 0 })],
  ['{ ...SHAPE, alpha: NaN }', () => ({ ...SHAPE, alpha: NaN })],
  ['{ ...SHAPE, transA: 1 }', () => ({ ...SHAPE, transA: 1 })],
  ['an m getter that answers 0, NaN, -1 in turn', () => changing('m', [0, NaN, -1], { n: 4, k: 4 })],
  ...NOT_NUMBERS.map(([label, make]): Hostile => [`{ ...SHAPE, k: ${label} }`, () => ({ ...SHAPE, k: make() })]),
  ['{ ...SHAPE, n: 2 ** 53 }', () => ({ ...SHAPE, n: 2 ** 53 })],
  ['{ ...SHAPE, n: 1e308 }', () => ({ ...SHAPE, n: 1e308 })],
];

/** Options no transform of 8 points takes (`{ shape: 8 }` is the one the valid calls repeat). */
const BAD_FFT_OPTIONS: readonly Hostile[] = [
  ...NOT_OPTIONS,
  ['undefined', () => undefined],
  ['{ shape: 8, batchs: 1 } (misspelt)', () => ({ shape: 8, batchs: 1 })],
  ['{ shpe: 8 } (misspelt)', () => ({ shpe: 8 })],
  ['{ shape: 0 }', () => ({ shape: 0 })],
  ['{ shape: [2, , 4] } (a hole)', () => ({ shape: [2, , 4] })],
  ['{ shape: [1, 1, 1, 8] }', () => ({ shape: [1, 1, 1, 8] })],
  ['{ shape: [] }', () => ({ shape: [] })],
  ['{ shape: 2 ** 31 }', () => ({ shape: 2 ** 31 })],
  ['{ shape: 8, batch: 0 }', () => ({ shape: 8, batch: 0 })],
  ['{ shape: 8, batch: 2 ** 40 }', () => ({ shape: 8, batch: 2 ** 40 })],
  ['{ shape: 20000 } (more than the arrays hold)', () => ({ shape: 20000 })],
  ['a shape getter that answers 0, NaN, [] in turn', () => changing('shape', [0, NaN, []])],
  ...NOT_NUMBERS.filter(([label]) => label !== '[4]').map(([label, make]): Hostile => [`{ shape: ${label} }`, () => ({ shape: make() })]),
];

export function libraryEntries(w: FuzzWorld, l: LibraryArrays): EntryPoint[] {
  const s = w.stream;
  const blas = w.device.blas, fourier = w.device.fft;
  const product = (shape: { m: number; n: number; k: number }) => referenceGemm(shape, l.av.slice(0, shape.m * shape.k), l.bv.slice(0, shape.k * shape.n), Array(shape.m * shape.n).fill(0), EPSILON.f32, EPSILON.f32);
  const checkGemm = (shape: { m: number; n: number; k: number }) => async () => {
    const want = product(shape);
    near(`C of ${JSON.stringify(shape)}`, (await w.readFloat(l.c)).slice(0, shape.m * shape.n), want.out, want.bound);
  };
  /** The forward DFT of `batch` signals of n points, checked against `out`. */
  const spectra = async (n: number, batch: number) => {
    const got = await readAll(l.out, 2 * n * batch);
    for (let i = 0; i < batch; i++) {
      const x = l.sv.slice(2 * n * i, 2 * n * (i + 1));
      // At most 24 frequencies, each summed here in f64 (all of them would cost n² for 71² points);
      // ‖X‖₂ = √n·‖x‖₂ (Parseval) gives the bound.
      const bins = [...new Set(Array.from({ length: Math.min(n, 24) }, (_, j) => (j < 8 ? j : j < 16 ? n - 1 - (j - 8) : Math.floor(((j - 16) * n) / 8))))];
      const bound = fftBound(n, EPSILON.f32, Math.sqrt(n) * norm(x));
      const picked = (spectrum: readonly number[]) => bins.flatMap((k) => [spectrum[2 * k]!, spectrum[2 * k + 1]!]);
      const want = bins.flatMap((k) => bin(x, k));
      near(`transform ${i} of ${n} points at frequencies ${bins.join(', ')}`, picked(got.slice(2 * n * i, 2 * n * (i + 1))), want, want.map(() => bound));
    }
  };
  const readAll = async (array: F32, length: number) => {
    const host = w.device.allocHost('f32', length);
    s.copy(host, array.subarray(0, length) as F32);
    await s.synchronized();
    const got = [...host.data];
    host.close();
    return got;
  };
  const transforms = fc.tuple(fc.constantFrom(...SIZES), fc.integer({ min: 1, max: 2 })).filter(([n, batch]) => n * batch <= MAX_POINTS);
  const badStreams: readonly Hostile[] = [['null', () => null], ['a closed Stream', () => w.closedStream], ['a Proxy around a Stream', () => proxied(s)], ['{}', () => ({})]];
  const badArrays: readonly Hostile[] = [
    ['null', () => null], ['a closed array', () => w.closedU32], ['a Proxy around a DeviceArray', () => proxied(l.signal)],
    ['an array of u32', () => w.u32], ['a Float32Array', () => new Float32Array(64)],
  ];
  const kinds = ['c2c', 'r2c', 'c2r'] as const;
  const fftEntry = (kind: (typeof kinds)[number]): EntryPoint => ({
    name: `Fft.${kind}`,
    calls: fc.oneof(
      transforms.map(([n, batch]) => {
        if (kind === 'c2c') return valid(`fft.c2c(signal, out, { shape: ${n}, batch: ${batch} })`, () => fourier.c2c(s, l.signal, l.out, { shape: n, batch }), () => spectra(n, batch));
        // r2c of real data, then c2r back: n times the data.
        const real = l.sv.slice(0, n * batch);
        const back = async () => {
          const got = await readAll(l.back, n * batch);
          near(`c2r(r2c(x)) of ${n} points`, got, real.map((x) => n * x), real.map(() => fftBound(n, EPSILON.f32, n * norm(real)) * 2));
        };
        if (kind === 'r2c') return valid(`fft.r2c(signal, out, { shape: ${n}, batch: ${batch} }), then c2r`, () => {
          fourier.r2c(s, l.signal, l.out, { shape: n, batch });
          fourier.c2r(s, l.out, l.back, { shape: n, batch });
        }, back);
        return valid(`fft.r2c, then fft.c2r(out, back, { shape: ${n}, batch: ${batch} })`, () => {
          fourier.r2c(s, l.signal, l.out, { shape: n, batch });
          fourier.c2r(s, l.out, l.back, { shape: n, batch });
        }, back);
      }),
      // Squares of primes above 61, drawn as often as all the other sizes together.
      fc.constantFrom(4489, 5041).map((n) => valid(`fft.c2c(signal, out, { shape: ${n} }) (${Math.sqrt(n)}²)`, () => fourier.c2c(s, l.signal, l.out, { shape: n }), () => spectra(n, 1))),
      fc.constant(valid(`fft.${kind}(…, { shape: 8 }) (the options the invalid calls repeat)`, () => fourier[kind](s, kind === 'c2r' ? l.out : l.signal, kind === 'c2r' ? l.back : l.out, { shape: 8 }))),
      fc.constant(0).map(() => {
        const options = changing('shape', [8, 1e6]);
        return either(`fft.${kind}(…, a shape getter that answers 8 and 1e6 in turn)`, () => fourier[kind](s, kind === 'c2r' ? l.out : l.signal, kind === 'c2r' ? l.back : l.out, options as never),
          kind === 'c2c' ? () => spectra(8, 1) : async () => undefined);
      }),
      hostile(BAD_FFT_OPTIONS, (label, options) => invalid(`fft.${kind}(…, ${label})`, () => fourier[kind](s, kind === 'c2r' ? l.out : l.signal, kind === 'c2r' ? l.back : l.out, options() as never))),
      hostile(badStreams, (label, stream) => invalid(`fft.${kind}(${label}, …)`, () => fourier[kind](stream() as Stream, l.signal, l.back, { shape: 8 }))),
      hostile([...badArrays, ['f64 (another element type than the input)', () => l.f64], ['the input itself, shifted by one element', () => l.signal.subarray(1)]],
        (label, output) => invalid(`fft.${kind}(signal, ${label}, { shape: 8 })`, () => fourier[kind](s, l.signal, output() as F32, { shape: 8 }))),
      ...(kind === 'c2c' ? [hostile([["{ shape: 8, direction: 'backward' }", () => ({ shape: 8, direction: 'backward' })], ['{ shape: 8, direction: -1 }', () => ({ shape: 8, direction: -1 })]],
        (label, options) => invalid(`fft.c2c(…, ${label})`, () => fourier.c2c(s, l.signal, l.out, options() as never)))]
        : [fc.constant(invalid(`fft.${kind}(…, { shape: 8, direction: 'inverse' })`, () => fourier[kind](s, kind === 'c2r' ? l.out : l.signal, kind === 'c2r' ? l.back : l.out, { shape: 8, direction: 'inverse' } as never)))]),
    ),
  });
  const pipeline = <T>(...ops: unknown[]) => lastValueFrom(((ops as ((x: unknown) => unknown)[]).reduce((x, op) => op(x) as never, of(Float32Array.from(l.av)).pipe(onStreams(w.pool)) as unknown) as Observable<unknown>).pipe(toArray())) as Promise<T>;
  const up = upload((x: Float32Array) => x, 'x');

  return [
    {
      name: 'Blas.for',
      calls: fc.oneof(
        fc.constant(valid('Blas.for(device)', () => Blas.for(w.device), (b) => void (b === blas || fail('Blas.for(device) is not device.blas')))),
        hostile([['null', () => null], ['a Proxy around a Device', () => proxied(w.device)], ['{}', () => ({})], ['a Stream', () => s]], (label, device) => invalid(`Blas.for(${label})`, () => Blas.for(device() as never))),
      ),
    },
    {
      name: 'Fft.for',
      calls: fc.oneof(
        fc.constant(valid('Fft.for(device)', () => Fft.for(w.device), (f) => void (f === fourier || fail('Fft.for(device) is not device.fft')))),
        hostile([['null', () => null], ['a Proxy around a Device', () => proxied(w.device)], ['{}', () => ({})]], (label, device) => invalid(`Fft.for(${label})`, () => Fft.for(device() as never))),
      ),
    },
    {
      name: 'Blas.gemm',
      calls: fc.oneof(
        shapes.map((shape) => valid(`blas.gemm(a, b, c, ${JSON.stringify(shape)})`, () => blas.gemm(s, l.a, l.b, l.c, shape), checkGemm(shape))),
        hostile(BAD_GEMM_OPTIONS, (label, options) => invalid(`blas.gemm(a, b, c, ${label})`, () => blas.gemm(s, l.a, l.b, l.c, options() as never))),
        fc.constant(0).map(() => {
          const options = changing('m', [2, 9999], { n: 4, k: 4 });
          return either('blas.gemm(a, b, c, an m getter that answers 2 and 9999 in turn)', () => blas.gemm(s, l.a, l.b, l.c, options as never), checkGemm(SHAPE));
        }),
        hostile(badStreams, (label, stream) => invalid(`blas.gemm(${label}, a, b, c, SHAPE)`, () => blas.gemm(stream() as Stream, l.a, l.b, l.c, SHAPE))),
        hostile([...badArrays, ['a (C over A)', () => l.a], ['f64', () => l.f64]], (label, c) => invalid(`blas.gemm(a, b, ${label}, SHAPE)`, () => blas.gemm(s, l.a, l.b, c() as F32, SHAPE))),
      ),
    },
    fftEntry('c2c'),
    fftEntry('r2c'),
    fftEntry('c2r'),
    {
      name: 'gemm',
      calls: fc.oneof(
        shapes.map((shape) => valid(`gemm(v => ({ a: x, b, c: v.device(…), ...${JSON.stringify(shape)} }))`, () => pipeline<{ results: { y: Float32Array } }[]>(up,
          gemm((v: AnyWork) => ({ a: v.buffers.x as F32, b: l.b, c: v.device('f32', shape.m * shape.n, 'y'), ...shape })), download((v: { buffers: { y: F32 } }) => v.buffers.y, 'y')), (out) => {
          const want = product(shape);
          near(`gemm operator's C of ${JSON.stringify(shape)}`, [...out[0]!.results.y], want.out, want.bound);
        })),
        hostile(NOT_FUNCTIONS, (label, configure) => invalid(`gemm(${label})`, () => gemm(configure() as never))),
        hostile([...BAD_GEMM_OPTIONS.filter(([label]) => !/^(5|'x'|\[\]|Symbol\(\)|a function|a revoked proxy)$/.test(label))],
          (label, options) => invalid(`gemm(v => ({ a, b, c, ...${label} }))`, () => pipeline(up, gemm((v: AnyWork) => {
            const o = options();
            return o === null ? (null as never) : Object.defineProperties({ a: v.buffers.x as F32, b: l.b, c: v.device('f32', 64) }, Object.getOwnPropertyDescriptors(o)) as never;
          })), { via: 'pipeline' })),
      ),
    },
    {
      name: 'fft',
      calls: fc.oneof(
        transforms.filter(([n, batch]) => n * batch <= 64).map(([n, batch]) => valid(`fft(v => ({ kind: 'c2c', shape: ${n}, batch: ${batch} }))`, () => pipeline<{ results: { y: Float32Array } }[]>(
          upload(() => Float32Array.from(l.sv.slice(0, 2 * n * batch)), 'x'),
          fft((v: AnyWork) => ({ kind: 'c2c', input: v.buffers.x as F32, output: v.device('f32', 2 * n * batch, 'y'), shape: n, batch })), download((v: { buffers: { y: F32 } }) => v.buffers.y, 'y')), (out) => {
          for (let i = 0; i < batch; i++) {
            const want = dft(l.sv.slice(2 * n * i, 2 * n * (i + 1)), -1);
            near(`fft operator's transform ${i} of ${n} points`, [...out[0]!.results.y].slice(2 * n * i, 2 * n * (i + 1)), want, want.map(() => fftBound(n, EPSILON.f32, norm(want))));
          }
        })),
        hostile(NOT_FUNCTIONS, (label, configure) => invalid(`fft(${label})`, () => fft(configure() as never))),
        hostile([...BAD_FFT_OPTIONS.filter(([label]) => !/^(5|'x'|\[\]|Symbol\(\)|a function|a revoked proxy|undefined)$/.test(label)), ["{ shape: 8, kind: 'dct' }", () => ({ shape: 8, kind: 'dct' })]],
          (label, options) => invalid(`fft(v => ({ kind: 'c2c', input, output, ...${label} }))`, () => pipeline(up, fft((v: AnyWork) => {
            const o = options();
            return o === null ? (null as never) : Object.defineProperties({ kind: 'c2c', input: v.buffers.x as F32, output: v.device('f32', 128) }, Object.getOwnPropertyDescriptors(o)) as never;
          })), { via: 'pipeline' })),
      ),
    },
  ];
}

/** Frequency k of the forward DFT of interleaved complex `x`, in f64. */
function bin(x: readonly number[], k: number): [number, number] {
  const n = x.length / 2;
  let re = 0, im = 0;
  for (let j = 0; j < n; j++) {
    const angle = (-2 * Math.PI * ((j * k) % n)) / n;
    const [c, s] = [Math.cos(angle), Math.sin(angle)];
    re += x[2 * j]! * c - x[2 * j + 1]! * s;
    im += x[2 * j]! * s + x[2 * j + 1]! * c;
  }
  return [re, im];
}

function fail(message: string): never {
  throw new Error(message);
}
