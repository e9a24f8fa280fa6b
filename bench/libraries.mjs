// bench/libraries: cuBLAS and cuFFT through rxcuda against the same libraries called directly from
// C++ (bench/native/libraries.cpp), on the same streams and memory, in the same process run:
// - 4096³ GEMM in f32 and f16 (f32 sums): TFLOPS from device time between events around ten
//   GEMMs, each side's behind one untimed GEMM, in rounds alternating between the two and which
//   goes first (target: rxcuda ≥ 0.98 × C++);
// - 64³ GEMM and a 4096-point c2c FFT: host time per call, bursts of 256 alternating, the drain
//   after each burst untimed (target: rxcuda ≤ 1.1 × C++);
// - the two examples' pipelines (examples/perceptron.ts, examples/spectrogram.ts), larger, in
//   values per second, eager and replayed.
// Prints the results as JSON and writes $OUT/libraries.json (bench/results/ without OUT).
// RXCUDA_BENCH_DIST=<folder> measures another build of rxcuda instead of dist/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastValueFrom, map, range } from 'rxjs';
import { perceptron, spectrogram } from './example-pipelines.mjs';

const dist = process.env.RXCUDA_BENCH_DIST ?? '../dist';
const rx = await import(new URL(`${dist}/src/index.js`, import.meta.url).href);
const { Device, libraryInfo, onStreams, replay } = rx;

function write(result) {
  console.log(JSON.stringify(result, null, 2));
  const dir = process.env.OUT || join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'libraries.json'), JSON.stringify({ ...result, node: process.version, date: new Date().toISOString() }, null, 2));
}

/** Why this benchmark cannot run here, or undefined. */
function problem() {
  if (Device.count() === 0) return `bench/libraries needs a CUDA device (and cuBLAS and cuFFT): ${Device.driverInfo().problem || 'the driver sees none'}`;
  const { cublas, cufft } = libraryInfo();
  if (!cublas.available || !cufft.available) return `bench/libraries needs cuBLAS and cuFFT: ${[cublas.problem, cufft.problem].filter(Boolean).join('; ')}`;
  return undefined;
}

const why = problem();
if (why) write({ name: 'libraries', skipped: why });
else await measure();

async function measure() {
  const { baseline, median } = await import('./support.mjs');
  const device = Device.default();
  const stream = device.createStream({ nonBlocking: true });
  const { blas, fft: transforms } = device;

  // GEMM throughput: device time per 4096³ product, alternating rounds.
  async function throughput(type, n, rounds = 7, iterations = 10) {
    const dtype = type === 0 ? 'f32' : 'f16';
    const [a, b, c] = [stream.alloc(dtype, n * n), stream.alloc(dtype, n * n), stream.alloc(dtype, n * n)];
    // Constant data (no products of zeros, which draw less power): the same for both sides.
    stream.fill(a, 1 / 64);
    stream.fill(b, 1 / 64);
    const shape = { m: n, n, k: n };
    const flop = 2 * n ** 3;
    const ours = [], theirs = [];
    blas.gemm(stream, a, b, c, shape);
    await stream.synchronized();
    // Timed as the C++ twin times its own: one untimed GEMM first, so that the device is busy
    // when the first event is recorded (the window holds GEMMs only, not the host's time to
    // enqueue the first one).
    const mine = async () => {
      blas.gemm(stream, a, b, c, shape);
      const start = stream.record({ timing: true });
      for (let i = 0; i < iterations; i++) blas.gemm(stream, a, b, c, shape);
      const end = stream.record({ timing: true });
      await end.completed();
      ours.push(flop / ((end.elapsedSince(start) / iterations) * 1e-3) / 1e12);
      start.close();
      end.close();
    };
    const twin = () => theirs.push(flop / (baseline.gemmDevice(stream.handle, type, n, a.ptr, b.ptr, c.ptr, iterations) * 1e-3) / 1e12);
    // Alternating which goes first, so that neither always runs right after the other.
    for (let round = 0; round < rounds; round++) {
      if (round % 2) twin();
      await mine();
      if (round % 2 === 0) twin();
    }
    for (const x of [a, b, c]) x.close();
    const [r, t] = [median(ours), median(theirs)];
    return { case: `GEMM ${n}³ ${dtype}`, rxcuda: r, native: t, unit: 'TFLOPS', ratio: r / t, target: '≥ 0.98' };
  }

  /** Nanoseconds per call of `call` over a burst; the drain after it is untimed. */
  function burst(size, call) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < size; i++) call();
    const end = process.hrtime.bigint();
    baseline.synchronize(stream.handle);
    return Number(end - start) / size;
  }

  async function hostTime(name, ours, theirs, bursts = 400, size = 256) {
    for (let i = 0; i < 20; i++) burst(size, ours), theirs(1, size);
    const r = [], t = [];
    for (let i = 0; i < bursts; i++) {
      r.push(burst(size, ours));
      t.push(theirs(1, size)[0]);
    }
    const [a, b] = [median(r) / 1000, median(t) / 1000];
    return { case: name, rxcuda: a, native: b, unit: 'µs/call', ratio: a / b, target: '≤ 1.10' };
  }

  const rows = [await throughput(0, 4096), await throughput(1, 4096)];

  {
    const n = 64;
    const [a, b, c] = [stream.alloc('f32', n * n), stream.alloc('f32', n * n), stream.alloc('f32', n * n)];
    for (const x of [a, b, c]) stream.fill(x, 0);
    const shape = { m: n, n, k: n };
    blas.gemm(stream, a, b, c, shape);
    await stream.synchronized();
    rows.push(await hostTime(`GEMM ${n}³ f32`, () => blas.gemm(stream, a, b, c, shape), (bursts, size) => baseline.gemmHost(stream.handle, 0, n, a.ptr, b.ptr, c.ptr, bursts, size)));
  }
  {
    const n = 4096;
    const [x, y] = [stream.alloc('f32', 2 * n), stream.alloc('f32', 2 * n)];
    stream.fill(x, 0);
    const shape = { shape: n };
    transforms.c2c(stream, x, y, shape);
    await stream.synchronized();
    rows.push(await hostTime(`FFT c2c ${n} f32`, () => transforms.c2c(stream, x, y, shape), (bursts, size) => baseline.fftHost(stream.handle, n, 1, x.ptr, y.ptr, bursts, size)));
    // Where the difference lies: the C++ plan given a work area as rxcuda's plans are (cuFFT's
    // auto-allocation off), and one C++ call per Node-API call from a JavaScript loop (the floor
    // of any binding).
    const work = stream.alloc('u8', 16 << 20);
    const withWork = await hostTime(`… C++ with a work area set, as rxcuda's plans`, () => transforms.c2c(stream, x, y, shape), (bursts, size) => baseline.fftHost(stream.handle, n, 1, x.ptr, y.ptr, bursts, size, work.ptr));
    const perCall = await hostTime(`… C++, one call per Node-API call`, () => transforms.c2c(stream, x, y, shape), (bursts, size) => Array.from({ length: bursts }, () => burst(size, () => baseline.fftOnce(stream.handle, n, x.ptr, y.ptr))));
    rows.push({ ...withWork, target: 'to compare' }, { ...perCall, target: 'to compare' });
    await stream.synchronized();
    work.close();
  }

  // The examples' pipelines, larger: values per second, eager and replayed.
  async function valuesPerSecond(count, work, replayed) {
    const start = performance.now();
    await lastValueFrom(range(0, count).pipe(onStreams(device, { lanes: 4 }), replayed ? replay(work) : work, map((w) => w.index)));
    return count / ((performance.now() - start) / 1000);
  }

  {
    const sizes = { rows: 512, inputs: 784, hidden: 1024, outputs: 16 };
    const { work, close } = await perceptron(rx, device, sizes);
    await valuesPerSecond(50, work, false);
    const eager = await valuesPerSecond(1000, work, false);
    const replayed = await valuesPerSecond(1000, work, true);
    close();
    rows.push({ case: `perceptron: batches of ${sizes.rows} rows, ${sizes.inputs} → ${sizes.hidden} → ${sizes.outputs}`, rxcuda: eager, replayed, unit: 'batches/s', rows_per_s: eager * sizes.rows });
  }
  {
    const sizes = { frame: 4096, frames: 64 };
    const { work } = await spectrogram(rx, device, sizes);
    await valuesPerSecond(50, work, false);
    const eager = await valuesPerSecond(2000, work, false);
    const replayed = await valuesPerSecond(2000, work, true);
    rows.push({ case: `spectrogram: blocks of ${sizes.frames} frames of ${sizes.frame} samples`, rxcuda: eager, replayed, unit: 'blocks/s', samples_per_s: eager * sizes.frames * sizes.frame });
  }

  stream.close();
  const info = libraryInfo();
  write({ name: 'libraries', title: `cuBLAS and cuFFT through rxcuda against C++, ${device.name}, cuBLAS ${info.cublas.version}, cuFFT ${info.cufft.version}`, rows });
}
