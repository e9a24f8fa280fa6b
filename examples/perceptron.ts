// A batched two-layer perceptron: each batch of inputs goes through a matrix product (cuBLAS on a
// GPU, the CPU reference on the host device), a bias-and-activation kernel, a second product and
// bias, then a host step that takes each row's argmax: the predicted class. The weights are made
// so that an input near the unit vector e_c is of class c, and every prediction is checked.
// Run: npx tsc && node dist/examples/perceptron.js
import { count, lastValueFrom, map, pipe, range } from 'rxjs';
import { Device, completed, download, gemm, host, launch, onStreams, upload, type Stream } from 'rxcuda';

const INPUTS = 16, HIDDEN = 32, CLASSES = 10, ROWS = 256, BATCHES = 8;
const device = Device.default();
const module = await device.compile(`
  extern "C" __global__ void bias_act(float* y, const float* bias, unsigned rows, unsigned cols, unsigned relu) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) { float v = y[i] + bias[i % cols]; y[i] = relu && v < 0.f ? 0.f : v; }
  }`);
const biasAct = module.kernel('bias_act', ['ptr<f32>', 'ptr<f32>', 'u32', 'u32', 'u32'], {
  cpu: (_, [y, bias, rows, cols, relu]) => {
    for (let i = 0; i < rows * cols; i++) {
      const v = Math.fround(y[i]! + bias[i % cols]!);
      y[i] = relu && v < 0 ? 0 : v;
    }
  },
});

// Hidden unit c is relu(x_c - 0.2) and unit 16 + c relu(-x_c - 0.2); logit c is hidden unit c.
const w1 = new Float32Array(INPUTS * HIDDEN), w2 = new Float32Array(HIDDEN * CLASSES);
for (let c = 0; c < INPUTS; c++) [w1[c * HIDDEN + c], w1[c * HIDDEN + INPUTS + c]] = [1, -1];
for (let c = 0; c < CLASSES; c++) w2[c * CLASSES + c] = 1;
const [b1, b2] = [new Float32Array(HIDDEN).fill(-0.2), new Float32Array(CLASSES)];
function toDevice(stream: Stream, data: Float32Array) {
  const pinned = device.allocHost('f32', data.length);
  pinned.data.set(data);
  const array = stream.alloc('f32', data.length);
  stream.copy(array, pinned);
  return array;
}
const setup = device.createStream();
const [W1, W2, B1, B2] = [toDevice(setup, w1), toDevice(setup, w2), toDevice(setup, b1), toDevice(setup, b2)];
await setup.synchronized(); // the lanes' streams read the weights from now on

// Row r of batch b is of class (7b + r) mod 10: e_c plus a little noise.
const classOf = (b: number, r: number) => (7 * b + r) % CLASSES;
let seed = 1;
const noise = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.1;
const batchOf = (b: number) => {
  const x = Float32Array.from({ length: ROWS * INPUTS }, noise);
  for (let r = 0; r < ROWS; r++) x[r * INPUTS + classOf(b, r)]! += 1;
  return x;
};
const grid = (n: number) => ({ grid: Math.ceil(n / 256), block: 256 });

// The two layers, as one operator: products on the library, bias and activation in a kernel.
const layers = pipe(
  upload((x: Float32Array) => x, 'x'),
  gemm((w) => ({ a: w.buffers.x, b: W1, c: w.device('f32', ROWS * HIDDEN, 'hidden'), m: ROWS, n: HIDDEN, k: INPUTS })),
  launch(biasAct, grid(ROWS * HIDDEN), [(w) => w.buffers.hidden, B1, ROWS, HIDDEN, 1]),
  gemm((w) => ({ a: w.buffers.hidden, b: W2, c: w.device('f32', ROWS * CLASSES, 'logits'), m: ROWS, n: CLASSES, k: HIDDEN })),
  launch(biasAct, grid(ROWS * CLASSES), [(w) => w.buffers.logits, B2, ROWS, CLASSES, 0]),
);

const start = performance.now();
let right = 0;
const batches = await lastValueFrom(
  range(0, BATCHES).pipe(
    map(batchOf),
    onStreams(device, { lanes: 2 }),
    layers,
    download((w) => w.buffers.logits, 'logits'),
    host((w) => {
      // The host step: each row's argmax, against the class it was made of.
      const logits = w.results.logits;
      let correct = 0;
      for (let r = 0; r < ROWS; r++) {
        let best = 0;
        for (let c = 1; c < CLASSES; c++) if (logits[r * CLASSES + c]! > logits[r * CLASSES + best]!) best = c;
        if (best === classOf(w.index, r)) correct++;
      }
      console.log(`batch ${w.index}: ${ROWS} rows, ${correct} predicted right`);
      right += correct;
    }),
    completed(), // once the host step has run
    count(),
  ),
);
const seconds = (performance.now() - start) / 1000;
console.log(`${right} of ${ROWS * batches} right on ${device.name}: ${Math.round((ROWS * batches) / seconds)} rows/s`);
