// saxpy on the default device (a GPU, else the host device): y = a·x + y over a million floats,
// checked on the host. Run: npx tsc && node dist/examples/saxpy.js
import { Device, LaunchConfig } from 'rxcuda';

const n = 1 << 20;
const device = Device.default();
console.log(device.kind === 'host' ? `running on the ${device.name}` : `running on ${device.name} (${device.arch})`);
using stream = device.createStream();

// Compiled once per source and options, then served from the on-disk cache.
const module = await device.compile(`
  extern "C" __global__ void saxpy(unsigned n, float a, const float* x, float* y) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
  }`, { options: ['--fmad=false'] });
// The CPU implementation lets the same program run where there is no GPU.
// 'ptr<f32>' is a float*: launches take only f32 arrays, and the CPU implementation gets Float32Arrays.
const saxpy = module.kernel('saxpy', ['u32', 'f32', 'ptr<f32>', 'ptr<f32>'], {
  cpu: (_, [n, a, x, y]) => {
    for (let i = 0; i < n; i++) y[i] = Math.fround(Math.fround(a * x[i]!) + y[i]!);
  },
});

// Pinned host memory: the copies below are asynchronous and `data` is a plain Float32Array.
const hx = device.allocHost('f32', n);
const hy = device.allocHost('f32', n);
hx.data.forEach((_, i) => (hx.data[i] = i));
hy.data.fill(1);

using x = stream.alloc('f32', n);
using y = stream.alloc('f32', n);
stream.copy(x, hx);
stream.copy(y, hy);
const { blockSize } = saxpy.suggestedBlockSize();
stream.launch(saxpy, new LaunchConfig({ grid: Math.ceil(n / blockSize), block: blockSize }), [n, 2, x, y]);
stream.copy(hy, y);
await stream.synchronized(); // resolved by the driver's callback; the main thread never blocked

const wrong = hy.data.findIndex((v, i) => v !== Math.fround(2 * i + 1));
console.log(wrong === -1 ? `all ${n} results exact` : `mismatch at ${wrong}`);
