// A spectrogram of audio blocks: each block of 8 frames of 1024 samples (48 kHz) goes through a
// real-to-complex FFT (cuFFT on a GPU, the CPU reference on the host device), a kernel that takes
// each bin's magnitude, and a host step that reports the block's peak frequency. Block b holds a
// tone of (20 + 4b) bins' frequency and a quieter one above it, so every peak can be checked.
// Run: npx tsc && node dist/examples/spectrogram.js
import { lastValueFrom, map, range, count } from 'rxjs';
import { Device, completed, download, fft, host, launch, onStreams, upload } from 'rxcuda';

const RATE = 48_000, FRAME = 1024, FRAMES = 8, BLOCKS = 12, BINS = FRAME / 2 + 1;
const device = Device.default();
const module = await device.compile(`
  extern "C" __global__ void magnitude(const float* spectrum, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = hypotf(spectrum[2 * i], spectrum[2 * i + 1]);
  }`);
const magnitude = module.kernel('magnitude', ['ptr<f32>', 'ptr<f32>', 'u32'], {
  cpu: (_, [spectrum, out, n]) => {
    for (let i = 0; i < n; i++) out[i] = Math.fround(Math.hypot(spectrum[2 * i]!, spectrum[2 * i + 1]!));
  },
});

const toneBin = (b: number) => 20 + 4 * b;
const block = (b: number) =>
  Float32Array.from({ length: FRAMES * FRAME }, (_, i) => {
    const t = i / RATE;
    return Math.sin(2 * Math.PI * ((toneBin(b) * RATE) / FRAME) * t) + 0.3 * Math.sin(2 * Math.PI * (((toneBin(b) + 50) * RATE) / FRAME) * t);
  });

const start = performance.now();
let right = 0;
const blocks = await lastValueFrom(
  range(0, BLOCKS).pipe(
    map(block),
    onStreams(device, { lanes: 3 }),
    upload((samples) => samples, 'samples'),
    fft((w) => ({ kind: 'r2c', input: w.buffers.samples, output: w.device('f32', FRAMES * BINS * 2, 'spectra'), shape: FRAME, batch: FRAMES })),
    launch(magnitude, { grid: Math.ceil((FRAMES * BINS) / 256), block: 256 }, [(w) => w.buffers.spectra, (w) => w.device('f32', FRAMES * BINS, 'magnitudes'), FRAMES * BINS]),
    download((w) => w.buffers.magnitudes, 'magnitudes'),
    host((w) => {
      // The host step: the loudest bin of each frame, and the block's peak frequency.
      const m = w.results.magnitudes;
      const peaks = Array.from({ length: FRAMES }, (_, f) => {
        let best = 0;
        for (let k = 1; k < BINS; k++) if (m[f * BINS + k]! > m[f * BINS + best]!) best = k;
        return best;
      });
      const hz = (peaks[0]! * RATE) / FRAME;
      if (peaks.every((k) => k === toneBin(w.index))) right++;
      console.log(`block ${w.index}: peak ${hz.toFixed(1)} Hz in all ${FRAMES} frames: ${peaks.every((k) => k === peaks[0])}`);
    }),
    completed(), // once the host step has run
    count(),
  ),
);
const seconds = (performance.now() - start) / 1000;
console.log(`${right} of ${blocks} blocks peak at their tone on ${device.name}: ${Math.round((blocks * FRAMES * FRAME) / seconds)} samples/s`);
