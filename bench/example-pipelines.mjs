// The device work of the two library examples (examples/perceptron.ts, examples/spectrogram.ts)
// as pipeline operators, at sizes of the caller's, with CPU implementations of their kernels so
// that they run on the host device too: bench/libraries and bench/study/replay-examples run them.
// Each takes its outputs from the pool between device work (`c: w.device(…)` after an upload or a
// product), as the examples do.
import { pipe } from 'rxjs';

const SOURCE = `
  extern "C" __global__ void bias_act(float* y, const float* bias, unsigned rows, unsigned cols, unsigned relu) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) { float v = y[i] + bias[i % cols]; y[i] = relu && v < 0.f ? 0.f : v; }
  }
  extern "C" __global__ void magnitude(const float* spectrum, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = hypotf(spectrum[2 * i], spectrum[2 * i + 1]);
  }`;

const grid = (rx, n) => new rx.LaunchConfig({ grid: Math.ceil(n / 256), block: 256 });

async function kernels(device) {
  const module = await device.compile(SOURCE, { name: 'bench-libraries.cu' });
  const biasAct = module.kernel('bias_act', ['ptr<f32>', 'ptr<f32>', 'u32', 'u32', 'u32'], {
    cpu: (_, [y, bias, rows, cols, relu]) => {
      for (let i = 0; i < rows * cols; i++) {
        const v = Math.fround(y[i] + bias[i % cols]);
        y[i] = relu && v < 0 ? 0 : v;
      }
    },
  });
  const magnitude = module.kernel('magnitude', ['ptr<f32>', 'ptr<f32>', 'u32'], {
    cpu: (_, [spectrum, out, n]) => {
      for (let i = 0; i < n; i++) out[i] = Math.fround(Math.hypot(spectrum[2 * i], spectrum[2 * i + 1]));
    },
  });
  return { biasAct, magnitude };
}

/**
 * The perceptron's layers on `device` (rxcuda's exports in `rx`): upload a batch of `rows` ×
 * `inputs`, a product with the first weights into a pooled `hidden`, bias and ReLU, a product
 * into a pooled `logits`, bias, download. `input(i)` is batch i; close() frees the weights.
 */
export async function perceptron(rx, device, { rows, inputs, hidden, outputs }) {
  const { biasAct } = await kernels(device);
  const stream = device.createStream();
  const weights = [inputs * hidden, hidden * outputs, hidden, outputs].map((n) => stream.alloc('f32', n));
  for (const w of weights) stream.fill(w, 0.01);
  await stream.synchronized();
  const [w1, w2, b1, b2] = weights;
  const data = new Float32Array(rows * inputs).fill(0.5);
  const [g1, g2] = [grid(rx, rows * hidden), grid(rx, rows * outputs)];
  const work = pipe(
    rx.upload(() => data, 'x'),
    rx.gemm((w) => ({ a: w.buffers.x, b: w1, c: w.device('f32', rows * hidden, 'hidden'), m: rows, n: hidden, k: inputs })),
    rx.launch(biasAct, (w) => ({ config: g1, args: [w.buffers.hidden, b1, rows, hidden, 1] })),
    rx.gemm((w) => ({ a: w.buffers.hidden, b: w2, c: w.device('f32', rows * outputs, 'logits'), m: rows, n: outputs, k: hidden })),
    rx.launch(biasAct, (w) => ({ config: g2, args: [w.buffers.logits, b2, rows, outputs, 0] })),
    rx.download((w) => w.buffers.logits, 'logits'),
  );
  return { work, close: () => (weights.forEach((w) => w.close()), stream.close()) };
}

/**
 * The spectrogram's work on `device`: upload `frames` frames of `frame` samples, an r2c
 * transform into pooled spectra, a magnitude kernel into pooled magnitudes, download.
 */
export async function spectrogram(rx, device, { frame, frames }) {
  const { magnitude } = await kernels(device);
  const bins = frame / 2 + 1;
  const samples = Float32Array.from({ length: frame * frames }, (_, i) => Math.sin(i / 7));
  const g = grid(rx, frames * bins);
  const work = pipe(
    rx.upload(() => samples, 'samples'),
    rx.fft((w) => ({ kind: 'r2c', input: w.buffers.samples, output: w.device('f32', frames * bins * 2, 'spectra'), shape: frame, batch: frames })),
    rx.launch(magnitude, (w) => ({ config: g, args: [w.buffers.spectra, w.device('f32', frames * bins, 'magnitudes'), frames * bins] })),
    rx.download((w) => w.buffers.magnitudes, 'magnitudes'),
  );
  return { work, close: () => {} };
}
