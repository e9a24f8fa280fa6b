// Study: the JavaScript part of a library call alone (argument checks, the block, the stream's
// workspace, the plan lookup), through natives that do nothing (rxcuda/internal's
// standInLibraries): a 64³ f32 GEMM and a 4096-point c2c FFT, the two host-time cases of
// bench/libraries, for this build and, with RXCUDA_BENCH_BEFORE=<folder of another checkout,
// built>, for that one too, alternating in one process. Needs no GPU: bench/libraries measures
// these calls against C++ on a GPU (cuBLAS's and cuFFT's own host time is most of it, 5–15 µs),
// and this isolates what rxcuda adds. Prints JSON.
//   node bench/study/library-path.mjs
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { median } from '../support.mjs';

const N = 200_000;
const ROUNDS = 30;

async function build(internal) {
  const { standInLibraries } = await import(internal);
  const { blas, fft, stream, arrays, ready } = standInLibraries(2 * 4096);
  const [a, b, c] = arrays;
  const gemm = { m: 64, n: 64, k: 64 };
  const transform = { shape: 4096 };
  fft.c2c(stream, a, b, transform); // makes the plan
  await ready();
  await new Promise((resolve) => setTimeout(resolve, 0));
  return {
    gemm: () => blas.gemm(stream, a, b, c, gemm),
    fft: () => fft.c2c(stream, a, b, transform),
  };
}

const builds = { this: await build('rxcuda/internal') };
if (process.env.RXCUDA_BENCH_BEFORE) builds.before = await build(pathToFileURL(join(process.env.RXCUDA_BENCH_BEFORE, 'dist/src/internal.js')).href);
const times = {};
for (let round = 0; round < ROUNDS; round++)
  for (const [name, calls] of Object.entries(builds))
    for (const [call, fn] of Object.entries(calls)) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < N; i++) fn();
      (times[`${name}: ${call}`] ??= []).push(Number(process.hrtime.bigint() - start) / N);
    }
const rows = Object.entries(times).map(([name, values]) => ({ case: name, ns: median(values), unit: 'ns of JavaScript per call', rounds: ROUNDS, calls: N }));
console.log(JSON.stringify({ study: 'library-path', rows }, null, 2));
