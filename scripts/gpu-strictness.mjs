// On a machine with a GPU: does the host device refuse what the GPU refuses, the same way? Each
// case runs on device 0 and on the host device (whose kernel sources are checked by NVRTC or
// nvcc), and the errors are compared by class, code and message; then each self-wait case is
// timed on the GPU. Prints one JSON object. Run after the build: node scripts/gpu-strictness.mjs
import { CudaError, DeadlockError, Device, hostCompiler, NvrtcError } from '../dist/src/index.js';

const SOURCE = String.raw`
struct Params { float a, b, c; };
extern "C" __global__ void saxpy(unsigned n, float a, const float* x, float* y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void by_value(Params p, double d) {}
template <typename T> __global__ void scale(T* x, T a) { x[threadIdx.x] *= a; }
`;
const cpu = () => {};

/** What `fn` threw or rejected with, as class, code and message (or 'accepted'). */
async function outcome(fn) {
  try {
    await fn();
    return 'accepted';
  } catch (error) {
    const kind = error instanceof NvrtcError ? 'NvrtcError' : error instanceof CudaError ? 'CudaError' : error?.constructor?.name;
    // The first line: the rest of an NvrtcError is its log, whose file names and notes differ by compiler.
    return { kind, code: error?.code, message: String(error?.message).split('\n')[0] };
  }
}

const cases = {
  'a source that does not compile': (device) => device.compile('this is not CUDA }{', { cache: false }),
  'a kernel name that is not an entry': async (device) => (await device.compile(SOURCE)).kernel('nope', ['u32'], { cpu }),
  'a signature of the wrong size': async (device) => (await device.compile(SOURCE)).kernel('saxpy', ['u32', 'f64', 'ptr', 'ptr'], { cpu }),
  'a signature of the wrong count': async (device) => (await device.compile(SOURCE)).kernel('saxpy', ['u32', 'f32', 'ptr'], { cpu }),
  'a right signature': async (device) => (await device.compile(SOURCE)).kernel('saxpy', ['u32', 'f32', 'ptr<f32>', 'ptr<f32>'], { cpu }),
  'a struct by value, default alignment': async (device) => (await device.compile(SOURCE)).kernel('by_value', [{ struct: 12 }, 'f64'], { cpu }),
  'a name expression': async (device) => (await device.compile(SOURCE, { expressions: ['scale<float>'] })).kernel('scale<float>', ['ptr<f32>', 'f32'], { cpu }),
  'a name expression that names nothing': (device) => device.compile(SOURCE, { cache: false, expressions: ['scale<nothing>'] }),
};

const report = { gpu: Device.count() > 0 ? Device.get(0).name : null, hostCompiler: await hostCompiler(), compile: {}, selfWait: {} };
for (const [name, run] of Object.entries(cases)) {
  const gpu = report.gpu ? await outcome(() => run(Device.get(0))) : 'no GPU';
  const host = await outcome(() => run(Device.host()));
  // The same refusal: the same class and code, and for argument errors the same message (the
  // host's compile errors and lookups add which compiler checked them, and the kernels there are).
  const same = typeof gpu === 'string' || typeof host === 'string' ? gpu === host : gpu.kind === host.kind && gpu.code === host.code && (gpu.kind !== 'TypeError' || gpu.message === host.message);
  report.compile[name] = { gpu, host, same };
}

const waits = {
  'synchronized()': (s) => s.synchronized(),
  'flushed()': (s) => s.flushed(),
  'onDone()': (s) => new Promise((resolve) => s.onDone(resolve)),
};
for (const device of report.gpu ? [Device.get(0), Device.host()] : [Device.host()]) {
  for (const [name, wait] of Object.entries(waits)) {
    for (const after of [false, true]) {
      const stream = device.createStream();
      const started = { at: 0 };
      const failure = new Promise((resolve) => stream.once('error', (error) => resolve({ error, ms: performance.now() - started.at })));
      stream.hostLaunch(async () => {
        if (after) await new Promise((resolve) => setTimeout(resolve, 1));
        started.at = performance.now();
        await wait(stream);
      });
      const timeout = new Promise((resolve) => setTimeout(() => resolve({ error: 'no error within 2 s', ms: 2000 }), 2000));
      const { error, ms } = await Promise.race([failure, timeout]);
      report.selfWait[`${device.kind}: ${name}${after ? ' after an await' : ''}`] = { deadlockError: error instanceof DeadlockError, ms: Number(ms.toFixed(2)) };
      await stream.synchronized();
      stream.close();
    }
  }
}
console.log(JSON.stringify(report, null, 2));
