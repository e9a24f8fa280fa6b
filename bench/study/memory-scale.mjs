// Study: memory over 10^6 small values through each pipeline (eager, replay, pinned, as in
// bench/study/per-value.mjs, values pulled from an iterator): JS heap, external memory and RSS
// after 10^5 values and after 10^6,
// each after full collections, and the lane pool's buffers. Flat after warm-up is the target.
//   node --expose-gc bench/study/memory-scale.mjs [--roads eager,replay,pinned] [--values 1000000] [--kernels 20]
// JSON to $OUT/memory-scale.json (or bench/results/).
import { count, lastValueFrom, pipe, tap } from 'rxjs';
import { report, rxcudaUnderTest } from '../support.mjs';

const gc = globalThis.gc;
if (typeof gc !== 'function') throw new Error('Run it with node --expose-gc: it collects before each figure');
const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const ROADS = arg('roads', 'eager,replay,pinned').split(',');
const VALUES = Number(arg('values', 1_000_000));
const KERNELS = Number(arg('kernels', 20));
const LENGTH = 256; // 1 KiB of f32
const FIRST = Math.min(100_000, VALUES);

const { Device, LanePool, LaunchConfig, download, framesFrom, lanesFrom, launch, replay, upload } = await rxcudaUnderTest();
const { nullKernel } = await rxcudaUnderTest(undefined, './internal');
const device = Device.default();
const cuda = device.kind === 'cuda';
const module = await device.compile(`extern "C" __global__ void add(unsigned n, float a, float* x) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += a;
}`, { name: 'memory-scale.cu' });
// The host device's CPU kernels run as host steps, which would make 10^6 values take minutes.
const add = cuda ? module.kernel('add', ['u32', 'f32', 'ptr<f32>']) : nullKernel(module, 'add', ['u32', 'f32', 'ptr<f32>']);
const config = new LaunchConfig({ grid: 1, block: LENGTH });
const data = new Float32Array(LENGTH).fill(1);
let checksum = 0;
const input = (w) => w.buffers.input;
const kernels = () => Array.from({ length: KERNELS }, (_, k) => launch(add, config, [LENGTH, k, input]));
const frameWork = () => pipe(upload(() => data), ...kernels(), download((w) => w.buffers.input, 'out'), tap((w) => (checksum += w.results.out[0])));
// Values pulled one at a time (lanesFrom), so that what is measured is the pipeline's memory: a
// source that pushes 10^6 values at once (range into onStreams) holds them all while they wait.
function* indexes(values) {
  for (let i = 0; i < values; i++) yield i;
}
const roads = {
  eager: (pool, values) => lanesFrom(indexes(values), pool).pipe(frameWork(), count()),
  replay: (pool, values) => lanesFrom(indexes(values), pool).pipe(replay(frameWork()), count()),
  pinned: (pool, values) =>
    framesFrom(pool, { dtype: 'f32', length: LENGTH, count: values }, (frame, i) => void (frame.data[0] = i)).pipe(
      upload((frame) => frame),
      ...kernels(),
      download((w) => w.buffers.input, 'out', { lend: 'release' }),
      tap((w) => {
        checksum += w.results.out.data[0];
        w.results.out.release();
      }),
      count(),
    ),
};

async function settled() {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { heapUsed, rss, external, arrayBuffers } = process.memoryUsage();
  return { heap: heapUsed / 2 ** 20, external: (external + arrayBuffers) / 2 ** 20, rss: rss / 2 ** 20 };
}

const rows = [];
for (const road of ROADS) {
  if (!(road in roads)) throw new RangeError(`Expected \`--roads\` to name ${Object.keys(roads).join(', ')}, got ${road}`);
  const pool = new LanePool(device, { lanes: 4, inFlight: 8 });
  const start = performance.now();
  let done = await lastValueFrom(roads[road](pool, FIRST));
  const first = await settled();
  done += await lastValueFrom(roads[road](pool, VALUES - FIRST));
  const last = await settled();
  if (done !== VALUES) throw new Error(`${road}: ${done} of ${VALUES} values came back`);
  rows.push({
    road,
    heap_mib_first: first.heap,
    heap_mib_last: last.heap,
    external_mib_first: first.external,
    external_mib_last: last.external,
    rss_mib_first: first.rss,
    rss_mib_last: last.rss,
    buffers_created: pool.stats.buffersCreated,
    values_per_s: VALUES / ((performance.now() - start) / 1000),
  });
  pool.close();
}
if (checksum === 0) throw new Error('no result was read');
report('memory-scale', `memory after ${FIRST} (first) and after ${VALUES} values (last) of ${LENGTH} f32, ${KERNELS} ${cuda ? '' : 'null '}kernels each, 4 lanes, ${device.name}`, rows, 'flat from 10^5 to 10^6');
