// bench/pipeline: frames of 8 MiB through upload → kernel → download on 3 lanes, rxcuda's
// operators against a C++ program doing the same with 3 streams, pinned buffers and events, in
// the same process; with the copy engines' bandwidth alone, to show how much the lanes overlap.
import { lastValueFrom, range, map, count } from 'rxjs';
import { Device, download, launch, onStreams, upload } from '../dist/src/index.js';
import { baseline, report } from './support.mjs';

const FRAME_BYTES = 8 * 2 ** 20;
const WORDS = FRAME_BYTES / 4;
const FRAMES = 300;
const LANES = 3;

const device = Device.default();
const module = await device.compile(`extern "C" __global__ void touch(unsigned* x, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] += 1;
}`, { name: 'bench-pipeline.cu' });
const touch = module.kernel('touch', ['ptr', 'u32']);
const config = { grid: Math.min(1024, WORDS / 256), block: 256 };
const source = new Uint32Array(WORDS).fill(1);
const result = new Uint32Array(WORDS); // as the C++ program, one array the results are copied into

async function rxcuda(frames) {
  const start = performance.now();
  const done = await lastValueFrom(
    range(0, frames).pipe(
      map(() => source),
      onStreams(device, { lanes: LANES, inFlight: LANES }),
      upload((frame) => frame),
      launch(touch, (w) => ({ config, args: [w.buffers.input, WORDS] })),
      download((w) => w.buffers.input, 'output', { into: () => result }),
      count(),
    ),
  );
  if (done !== frames) throw new Error(`${done} of ${frames} frames came back`);
  return (performance.now() - start) / 1000;
}

await rxcuda(20); // warm-up: pools, JIT
baseline.pipelineBaseline(touch.handle, 20, FRAME_BYTES, LANES);
const ours = [];
const theirs = [];
let bandwidth;
for (let round = 0; round < 3; round++) {
  ours.push(FRAMES / (await rxcuda(FRAMES)));
  const native = baseline.pipelineBaseline(touch.handle, FRAMES, FRAME_BYTES, LANES);
  theirs.push(FRAMES / native.seconds);
  bandwidth = native;
}
const best = (xs) => Math.max(...xs);
// With copies in both directions overlapping, a frame needs at least the longer of the two.
const copyBound = (1e9 * Math.min(bandwidth.h2dGBps, bandwidth.d2hGBps)) / FRAME_BYTES;
report('pipeline', `8 MiB frames, upload → kernel → download, ${LANES} lanes, ${device.name}`, [
  {
    rxcuda_frames_per_s: best(ours),
    native_frames_per_s: best(theirs),
    ratio: best(ours) / best(theirs),
    copy_bound_frames_per_s: copyBound,
    rxcuda_of_copy_bound: best(ours) / copyBound,
    h2d_GBps: bandwidth.h2dGBps,
    d2h_GBps: bandwidth.d2hGBps,
  },
], 'ratio ≥ 0.9');
