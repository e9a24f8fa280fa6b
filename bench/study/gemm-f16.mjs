// Study: what rxcuda's 4096³ GEMM and its host time per call differ in from the C++ twin of
// bench/libraries (bench/native/libraries.cpp), one difference at a time, in one process on the
// same stream and arrays, in rounds whose order rotates:
// - device time per GEMM (f16 with f32 sums, and f32), TFLOPS: rxcuda timed with and without an
//   untimed GEMM before its first event (the C++ twin has always run one), and the C++ twin with
//   cuBLAS's own workspace, without the untimed GEMM, with rxcuda's workspace (the stream's, from
//   the stream-ordered pool, given with cublasSetWorkspace as rxcuda gives it), and with 4 MiB of it;
// - host time per call of a 64³ GEMM and a 4096-point c2c: rxcuda, the C++ twin's loop (cuBLAS's
//   workspace or rxcuda's; cuFFT's work area or rxcuda's, in a plan made as rxcuda makes them),
//   and one library call per Node-API call from a JavaScript loop (gemmOnce, fftOnce: the floor
//   of any binding).
// Prints JSON; needs a GPU with cuBLAS and cuFFT. ROUNDS=n sets the rounds (default 9):
//   node bench/study/gemm-f16.mjs
import { Device, libraryInfo } from 'rxcuda';
import { libraryWorkspace } from 'rxcuda/internal';
import { baseline, median } from '../support.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 9);
const { cublas, cufft } = libraryInfo();
if (Device.count() === 0 || !cublas.available || !cufft.available) {
  console.log(JSON.stringify({ study: 'gemm-f16', skipped: 'needs a CUDA device with cuBLAS and cuFFT' }));
  process.exit(0);
}
const device = Device.default();
const stream = device.createStream({ nonBlocking: true });
const { blas, fft } = device;

/** Medians of each variant over rounds that run every variant, in an order rotated each round. */
async function rounds(variants) {
  const names = Object.keys(variants);
  const values = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++)
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length];
      values[name].push(await variants[name]());
    }
  return Object.fromEntries(names.map((name) => [name, median(values[name])]));
}

async function throughput(type, n = 4096, iterations = 10) {
  const dtype = type === 0 ? 'f32' : 'f16';
  const [a, b, c] = [stream.alloc(dtype, n * n), stream.alloc(dtype, n * n), stream.alloc(dtype, n * n)];
  stream.fill(a, 1 / 64);
  stream.fill(b, 1 / 64);
  const shape = { m: n, n, k: n };
  blas.gemm(stream, a, b, c, shape);
  await stream.synchronized();
  const workspace = libraryWorkspace(stream);
  const tflops = (ms) => (2 * n ** 3) / (ms * 1e-3) / 1e12;
  const ours = async (warm) => {
    if (warm) blas.gemm(stream, a, b, c, shape);
    const start = stream.record({ timing: true });
    for (let i = 0; i < iterations; i++) blas.gemm(stream, a, b, c, shape);
    const end = stream.record({ timing: true });
    await end.completed();
    const ms = end.elapsedSince(start) / iterations;
    start.close();
    end.close();
    return tflops(ms);
  };
  const twin = (warm, ws, bytes) => tflops(baseline.gemmDevice(stream.handle, type, n, a.ptr, b.ptr, c.ptr, iterations, warm, ws ?? 0n, bytes ?? 0));
  const result = await rounds({
    'rxcuda, an untimed GEMM first': () => ours(true),
    'rxcuda, no untimed GEMM first': () => ours(false),
    "C++, cuBLAS's workspace, an untimed GEMM first": () => twin(true),
    "C++, cuBLAS's workspace, no untimed GEMM first": () => twin(false),
    "C++, rxcuda's workspace": () => twin(true, workspace?.ptr, workspace?.byteLength),
    "C++, 4 MiB of rxcuda's workspace": () => twin(true, workspace?.ptr, 4 << 20),
  });
  for (const x of [a, b, c]) x.close();
  return { case: `GEMM ${n}³ ${dtype}`, unit: 'TFLOPS', workspaceBytes: workspace?.byteLength ?? 0, ...result };
}

/** Nanoseconds per call of `call` over a burst; the drain after it is untimed. */
function burst(size, call) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < size; i++) call();
  const end = process.hrtime.bigint();
  baseline.synchronize(stream.handle);
  return Number(end - start) / size;
}

async function hostTimes(bursts = 200, size = 256) {
  const n = 64;
  const [a, b, c] = [stream.alloc('f32', n * n), stream.alloc('f32', n * n), stream.alloc('f32', n * n)];
  for (const x of [a, b, c]) stream.fill(x, 0);
  const [x, y] = [stream.alloc('f32', 2 * 4096), stream.alloc('f32', 2 * 4096)];
  stream.fill(x, 0);
  const shape = { m: n, n, k: n }, transform = { shape: 4096 };
  blas.gemm(stream, a, b, c, shape);
  fft.c2c(stream, x, y, transform);
  await stream.synchronized();
  fft.c2c(stream, x, y, transform); // the plan made, its work area taken
  await stream.synchronized();
  const ws = libraryWorkspace(stream);
  const h = stream.handle;
  // Each round: the median of `bursts / ROUNDS` bursts of each variant.
  const per = (fn) => () => median(Array.from({ length: Math.ceil(bursts / ROUNDS) }, fn));
  const us = (ns) => ns / 1000;
  const result = await rounds({
    'GEMM 64³ f32: rxcuda': per(() => us(burst(size, () => blas.gemm(stream, a, b, c, shape)))),
    "GEMM 64³ f32: C++ loop, cuBLAS's workspace": per(() => us(baseline.gemmHost(h, 0, n, a.ptr, b.ptr, c.ptr, 1, size)[0])),
    "GEMM 64³ f32: C++ loop, rxcuda's workspace": per(() => us(baseline.gemmHost(h, 0, n, a.ptr, b.ptr, c.ptr, 1, size, ws?.ptr ?? 0n, ws?.byteLength ?? 0)[0])),
    'GEMM 64³ f32: one Node-API call per GEMM': per(() => us(burst(size, () => baseline.gemmOnce(h, 0, n, a.ptr, b.ptr, c.ptr)))),
    'FFT c2c 4096 f32: rxcuda': per(() => us(burst(size, () => fft.c2c(stream, x, y, transform)))),
    "FFT c2c 4096 f32: C++ loop, cuFFT's work area": per(() => us(baseline.fftHost(h, 4096, 1, x.ptr, y.ptr, 1, size)[0])),
    "FFT c2c 4096 f32: C++ loop, a plan made as rxcuda's, rxcuda's work area": per(() => us(baseline.fftHost(h, 4096, 1, x.ptr, y.ptr, 1, size, ws?.ptr ?? 0n)[0])),
    'FFT c2c 4096 f32: one Node-API call per transform': per(() => us(burst(size, () => baseline.fftOnce(h, 4096, x.ptr, y.ptr)))),
  });
  for (const z of [a, b, c, x, y]) z.close();
  return { case: 'host time per call', unit: 'µs', ...result };
}

const rows = [await throughput(1), await throughput(0), await hostTimes()];
stream.close();
console.log(JSON.stringify({ study: 'gemm-f16', device: device.name, cublas: cublas.version, cufft: cufft.version, rounds: ROUNDS, rows }, null, 2));
