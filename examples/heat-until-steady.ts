// A rod's temperature relaxed until it is steady, the loop decided on the device: a captured graph
// whose while loop runs the relaxation kernel until no point changes by more than a tolerance (the
// kernel sets the loop's condition), bounded by maxIterations, then the same relaxation driven from
// JavaScript (read the flag back, decide, launch again) for comparison. Both give the same rod and
// the same number of sweeps. Run: npx tsc && node dist/examples/heat-until-steady.js
import { Device, LoopLimitError } from 'rxcuda';

const N = 64; // points of the rod, one thread each
const TOLERANCE = 1e-3;
const device = Device.default();
using stream = device.createStream();

// One sweep: each inner point takes the mean of its neighbours; the ends stay fixed. The kernel
// tells whether any point moved by more than the tolerance, by the graph's condition when it runs
// in a loop on the device, or in a word of memory when JavaScript decides.
const module = await device.compile(`
  __device__ bool sweep(float* t, unsigned n, float tolerance, unsigned* sweeps) {
    __shared__ float next[${N}];
    __shared__ int moved;
    unsigned i = threadIdx.x;
    if (i == 0) moved = 0;
    __syncthreads();
    float v = t[i];
    if (i > 0 && i < n - 1) v = 0.5f * (t[i - 1] + t[i + 1]);
    next[i] = v;
    __syncthreads();
    if (fabsf(next[i] - t[i]) > tolerance) moved = 1;
    t[i] = next[i];
    __syncthreads();
    if (i == 0) sweeps[0] += 1;
    return moved != 0;
  }
  extern "C" __global__ void relax(float* t, unsigned n, float tolerance, unsigned* sweeps, cudaGraphConditionalHandle more) {
    bool moved = sweep(t, n, tolerance, sweeps);
    if (threadIdx.x == 0) cudaGraphSetConditional(more, moved);
  }
  extern "C" __global__ void relax_flag(float* t, unsigned n, float tolerance, unsigned* sweeps, unsigned* moved) {
    bool m = sweep(t, n, tolerance, sweeps);
    if (threadIdx.x == 0) moved[0] = m;
  }`, { options: ['--fmad=false'] });

// The CPU implementation: the same arithmetic in single precision, for the host device.
function sweep(t: Float32Array, n: number, tolerance: number, sweeps: Uint32Array): boolean {
  const next = Float32Array.from(t);
  for (let i = 1; i < n - 1; i++) next[i] = Math.fround(0.5 * Math.fround(t[i - 1]! + t[i + 1]!));
  const moved = next.some((v, i) => Math.abs(Math.fround(v - t[i]!)) > tolerance);
  t.set(next);
  sweeps[0] = sweeps[0]! + 1;
  return moved;
}
const relax = module.kernel('relax', ['ptr<f32>', 'u32', 'f32', 'ptr<u32>', 'condition'], {
  cpu: (_, [t, n, tolerance, sweeps, more]) => more.set(sweep(t, n, tolerance, sweeps)),
});
const relaxFlag = module.kernel('relax_flag', ['ptr<f32>', 'u32', 'f32', 'ptr<u32>', 'ptr<u32>'], {
  cpu: (_, [t, n, tolerance, sweeps, moved]) => void (moved[0] = sweep(t, n, tolerance, sweeps) ? 1 : 0),
});

const start = device.allocHost('f32', N);
start.data.fill(0);
start.data[0] = 100; // one end hot, the other cold
using rod = stream.alloc('f32', N);
using sweeps = stream.alloc('u32', 1);
using moved = stream.alloc('u32', 1);
const config = { grid: 1, block: N };

stream.on('error', (error) => {
  if (error instanceof LoopLimitError) console.log(`${error.loop} stopped after ${error.iterations} sweeps`);
});

// On the device: one launch of the graph runs every sweep.
using graph = await stream.capture((s) => {
  const more = s.condition({ initial: 1 });
  s.whileLoop(more, () => s.launch(relax, config, [rod, N, TOLERANCE, sweeps, more]), { maxIterations: 100_000, name: 'relaxation' });
});
using exec = graph.instantiate();
stream.copy(rod, start);
stream.fill(sweeps, 0);
exec.launch(stream);
const onDevice = device.allocHost('f32', N);
const deviceSweeps = device.allocHost('u32', 1);
stream.copy(onDevice, rod);
stream.copy(deviceSweeps, sweeps);
await stream.synchronized();

// From JavaScript: each sweep's flag read back before the next is launched.
stream.copy(rod, start);
stream.fill(sweeps, 0);
const flag = device.allocHost('u32', 1);
let hostSweeps = 0;
do {
  stream.launch(relaxFlag, config, [rod, N, TOLERANCE, sweeps, moved]);
  stream.copy(flag, moved);
  await stream.synchronized();
  hostSweeps++;
} while (flag.data[0] !== 0);
const fromHost = device.allocHost('f32', N);
stream.copy(fromHost, rod);
await stream.synchronized();

const same = onDevice.data.every((v, i) => v === fromHost.data[i]);
console.log(`steady after ${deviceSweeps.data[0]} sweeps on the device, ${hostSweeps} decided from JavaScript; same rod: ${same}`);
console.log(`middle of the rod: ${onDevice.data[N / 2]!.toFixed(2)} degrees`);
