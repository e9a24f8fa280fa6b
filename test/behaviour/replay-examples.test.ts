// The examples' pipelines under the replay operator: the perceptron's (upload, two products with a
// bias-and-activation kernel after each, download, a host step) and the spectrogram's (upload,
// r2c, a magnitude kernel, download, a host step). Both take pooled outputs between device work
// (`c: w.device(…)` after an upload or a product), which the first values allocate and later
// ones reuse: every value after the first must still replay the first one's graph.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { firstValueFrom, map, pipe, range, toArray, type OperatorFunction } from 'rxjs';
import { GraphExec, REPLAY_EAGER_WARNING, download, fft, gemm, host, launch, onStreams, replay, upload, type Device, type Work } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { EPSILON, fftBound, norm, outside, upload as toDevice } from '../support/libraries.js';

const SOURCE = `
  extern "C" __global__ void bias_act(float* y, const float* bias, unsigned rows, unsigned cols, unsigned relu) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) { float v = y[i] + bias[i % cols]; y[i] = relu && v < 0.f ? 0.f : v; }
  }
  extern "C" __global__ void magnitude(const float* spectrum, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = hypotf(spectrum[2 * i], spectrum[2 * i + 1]);
  }`;

async function kernels(device: Device) {
  const module = await device.compile(SOURCE, { name: 'replay-examples.cu' });
  const biasAct = module.kernel('bias_act', ['ptr<f32>', 'ptr<f32>', 'u32', 'u32', 'u32'], {
    cpu: (_, [y, bias, rows, cols, relu]) => {
      for (let i = 0; i < rows * cols; i++) {
        const v = Math.fround(y[i]! + bias[i % cols]!);
        y[i] = relu && v < 0 ? 0 : v;
      }
    },
  });
  const magnitude = module.kernel('magnitude', ['ptr<f32>', 'ptr<f32>', 'u32'], {
    cpu: (_, [spectrum, out, n]) => {
      for (let i = 0; i < n; i++) out[i] = Math.fround(Math.hypot(spectrum[2 * i]!, spectrum[2 * i + 1]!));
    },
  });
  return { biasAct, magnitude };
}

const grid = (n: number) => ({ grid: Math.ceil(n / 256), block: 256 });
const noise = (seed: number, length: number) => Float32Array.from({ length }, (_, i) => Math.sin(seed * 12.9898 + i * 78.233) * 0.5);

describeBackends('replay of the examples\' pipelines', (getDevice, backend) => {
  const warnings: string[] = [];
  const listen = (warning: Error & { code?: string }) => void (warning.code === REPLAY_EAGER_WARNING && warnings.push(warning.message));
  beforeEach(() => {
    warnings.length = 0;
    process.on('warning', listen);
  });
  afterEach(() => {
    process.off('warning', listen);
    vi.restoreAllMocks();
  });

  /**
   * Runs `work` over `count` values eagerly (which also makes the GPU libraries ready), then
   * replayed, counting the executables launched meanwhile: each value's results, both ways.
   */
  async function both<T>(device: Device, count: number, source: (i: number) => T, work: OperatorFunction<Work<T>, Work<T, unknown, { out: Float32Array }>>) {
    const run = (replayed: boolean) =>
      firstValueFrom(
        range(0, count).pipe(
          map(source),
          onStreams(device, { lanes: 3 }),
          replayed ? replay(work) : work,
          map((w): [number, number[]] => [w.index, [...w.results.out]]),
          toArray(),
        ),
      ).then((results) => new Map(results));
    const eager = await run(false);
    const launches = vi.spyOn(GraphExec.prototype, 'launch');
    const replayed = await run(true);
    return { eager, replayed, launches: launches.mock.calls.length };
  }

  function expectSame(replayed: Map<number, number[]>, eager: Map<number, number[]>, bound: (values: number[]) => number) {
    expect([...replayed.keys()].sort((a, b) => a - b)).toEqual([...eager.keys()].sort((a, b) => a - b));
    for (const [index, want] of eager) {
      const got = replayed.get(index)!;
      if (backend === 'host') expect(got, `value ${index}`).toEqual(want);
      else expect(outside(got, want, want.map(() => bound(want))), `value ${index}`).toEqual([]);
    }
  }

  it('replays every perceptron batch after the first, as one graph per batch, with the eager results', async () => {
    const device = getDevice();
    const { biasAct } = await kernels(device);
    const [ROWS, INPUTS, HIDDEN, CLASSES] = [256, 16, 32, 10];
    const s = device.createStream();
    const weights = (length: number, seed: number) => toDevice(s, 'f32', [...noise(seed, length)]);
    const [W1, W2, B1, B2] = [weights(INPUTS * HIDDEN, 1), weights(HIDDEN * CLASSES, 2), weights(HIDDEN, 3), weights(CLASSES, 4)];
    await s.synchronized();
    const argmax: number[][] = [];
    const work = pipe(
      upload((x: Float32Array) => x, 'x'),
      gemm((w) => ({ a: w.buffers.x, b: W1, c: w.device('f32', ROWS * HIDDEN, 'hidden'), m: ROWS, n: HIDDEN, k: INPUTS })),
      launch(biasAct, (w) => ({ config: grid(ROWS * HIDDEN), args: [w.buffers.hidden, B1, ROWS, HIDDEN, 1] })),
      gemm((w) => ({ a: w.buffers.hidden, b: W2, c: w.device('f32', ROWS * CLASSES, 'logits'), m: ROWS, n: CLASSES, k: HIDDEN })),
      launch(biasAct, (w) => ({ config: grid(ROWS * CLASSES), args: [w.buffers.logits, B2, ROWS, CLASSES, 0] })),
      download((w) => w.buffers.logits, 'out'),
      host((w) => void argmax.push([w.index, w.results.out.indexOf(Math.max(...w.results.out))])),
    );
    const count = backend === 'cuda' ? 48 : 12;
    const { eager, replayed, launches } = await both(device, count, (i) => noise(10 + i, ROWS * INPUTS), work);
    s.close();
    expect(launches).toBe(count);
    expect(warnings).toEqual([]);
    // Sums of k = 32 products of values below 1 in magnitude, each rounded in f32.
    expectSame(replayed, eager, (want) => 4 * HIDDEN * EPSILON.f32 * (1 + norm(want)));
    expect(argmax).toHaveLength(2 * count); // the host step ran for every value, both times
  });

  it('replays every spectrogram block after the first, as one graph per block, with the eager results', async () => {
    const device = getDevice();
    const { magnitude } = await kernels(device);
    const [FRAME, FRAMES] = [1024, 8];
    const BINS = FRAME / 2 + 1;
    const peaks: number[] = [];
    const work = pipe(
      upload((samples: Float32Array) => samples, 'samples'),
      fft((w) => ({ kind: 'r2c', input: w.buffers.samples, output: w.device('f32', FRAMES * BINS * 2, 'spectra'), shape: FRAME, batch: FRAMES })),
      launch(magnitude, (w) => ({ config: grid(FRAMES * BINS), args: [w.buffers.spectra, w.device('f32', FRAMES * BINS, 'out'), FRAMES * BINS] })),
      download((w) => w.buffers.out, 'out'),
      host((w) => void peaks.push(w.results.out.subarray(0, BINS).indexOf(Math.max(...w.results.out.subarray(0, BINS))))),
    );
    const tone = (b: number) => Float32Array.from({ length: FRAMES * FRAME }, (_, i) => Math.sin((2 * Math.PI * (20 + 4 * b) * i) / FRAME));
    const count = backend === 'cuda' ? 48 : 12;
    const { eager, replayed, launches } = await both(device, count, tone, work);
    expect(launches).toBe(count);
    expect(warnings).toEqual([]);
    expectSame(replayed, eager, (want) => fftBound(FRAME, EPSILON.f32, norm(want)));
    expect(peaks.slice(count).sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, b) => 20 + 4 * b));
  });
});

