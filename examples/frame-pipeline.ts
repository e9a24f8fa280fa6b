// A frame pipeline: synthetic frames → upload → two kernels → a host step → download, spread over
// three stream lanes with at most six frames in flight. Runs on a GPU, else on the host device.
// Run: npx tsc && node dist/examples/frame-pipeline.js
import { interval, map, take } from 'rxjs';
import { Device, download, host, launch, onStreams, upload } from 'rxcuda';

const WIDTH = 640, HEIGHT = 480, PIXELS = WIDTH * HEIGHT;
const device = Device.default();
const module = await device.compile(`
  extern "C" __global__ void to_gray(const unsigned* rgba, unsigned char* gray, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { unsigned p = rgba[i]; gray[i] = ((p & 255) * 77 + ((p >> 8) & 255) * 150 + ((p >> 16) & 255) * 29) >> 8; }
  }
  extern "C" __global__ void threshold(unsigned char* gray, unsigned char level, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) gray[i] = gray[i] >= level ? 255 : 0;
  }`);
// Typed pointers: the CPU implementations get a Uint32Array and a Uint8Array, and a launch with
// arrays of other element types does not compile.
const toGray = module.kernel('to_gray', ['ptr<u32>', 'ptr<u8>', 'u32'], {
  cpu: (_, [rgba, gray, n]) => {
    for (let i = 0; i < n; i++) {
      const p = rgba[i]!;
      gray[i] = ((p & 255) * 77 + ((p >> 8) & 255) * 150 + ((p >> 16) & 255) * 29) >> 8;
    }
  },
});
const threshold = module.kernel('threshold', ['ptr<u8>', 'u8', 'u32'], {
  cpu: (_, [gray, level, n]) => {
    for (let i = 0; i < n; i++) gray[i] = gray[i]! >= level ? 255 : 0;
  },
});
const config = { grid: Math.ceil(PIXELS / 256), block: 256 };

// A camera would push frames; here a timer makes 30 of them, each a moving gradient.
const frames = interval(5).pipe(
  take(30),
  map((t) => Uint32Array.from({ length: PIXELS }, (_, i) => ((i + t * 1000) % WIDTH) * 0x010101)),
);

let darkest = Infinity;
frames
  .pipe(
    onStreams(device, { lanes: 3, inFlight: 6 }),
    upload((rgba) => rgba, 'rgba'), // w.buffers.rgba: DeviceArray<'u32'>
    // A pooled output array, named: w.buffers.gray is a DeviceArray<'u8'> from here on.
    launch(toGray, config, [(w) => w.buffers.rgba, (w) => w.device('u8', PIXELS, 'gray'), PIXELS]),
    launch(threshold, config, [(w) => w.buffers.gray, 128, PIXELS]),
    host((w) => void (darkest = Math.min(darkest, w.index))), // runs in stream order, on the main thread
    download((w) => w.buffers.gray, 'mask'), // w.results.mask: Uint8Array
  )
  .subscribe({
    next: (w) => {
      const white = w.results.mask.reduce((n, v) => n + (v === 255 ? 1 : 0), 0);
      console.log(`frame ${w.index} (lane ${w.lane.index}): ${((100 * white) / PIXELS).toFixed(1)}% above threshold`);
    },
    complete: () => console.log(`done on ${device.name}`),
    error: (error) => console.error('pipeline failed:', error),
  });
