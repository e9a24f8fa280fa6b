// Study: what rxcuda's reactive layer costs per value, by part (the operators, RxJS, the envelope,
// the lane pool, the launch, the completion, ...), on the main thread and in JS heap, for small
// frames through the pipelines bench/small-frames measures (`--roads` picks them):
// - eager: plain arrays, upload → K kernels → download into a new array, one launch at a time;
// - replay: the same inside `replay`, one graph launch per value;
// - pinned: frames filled in place (framesFrom) → upload → K kernels → download { lend: 'release' }.
// For each pipeline: frames/s and main-thread time per value (event-loop utilization, unprofiled),
// the CPU profiler's split of that time by part, and the heap allocated per value by part and by
// site (the sampling heap profiler, counting what collections freed). On the host device the
// kernels are null kernels (the launch path without a launch, see rxcuda/internal), so that what
// is timed is rxcuda's own work; on a GPU they are real kernels.
//   node bench/study/per-value.mjs [--roads eager,replay,pinned] [--values 20000] [--kernels 20]
//     [--length 1024] [--lanes 4] [--sites 12] [--spin 0] [--pause ns] [--args given|per-value]
// JSON to $OUT/per-value.json (or bench/results/); RXCUDA_BENCH_DIST=<folder> studies another
// build (an earlier commit's, say).
import { lastValueFrom, count, map, pipe, range, tap } from 'rxjs';
import { report, rxcudaUnderTest } from '../support.mjs';
import { PARTS, PART_NAMES, heapParts, profileParts } from './parts.mjs';

const OWN = PARTS.map(([name]) => name).filter((name) => name !== 'RxJS');

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const ROADS = arg('roads', 'eager,replay,pinned').split(',');
const VALUES = Number(arg('values', 20000));
const KERNELS = Number(arg('kernels', 20));
const LENGTH = Number(arg('length', 1024));
const LANES = Number(arg('lanes', 4));
const SITES = Number(arg('sites', 12));
const ARGS = arg('args', 'given');
if (ARGS !== 'given' && ARGS !== 'per-value') throw new RangeError(`Expected \`--args\` to be 'given' or 'per-value', got ${ARGS}`);
// The pool's `spin` (µs a native thread watches each value's completion); left out, the pool's default.
const SPIN = arg('spin', undefined) === undefined ? undefined : Number(arg('spin'));

// This checkout's rxcuda, or with RXCUDA_BENCH_DIST=<folder> another build's (see support.mjs).
const { Device, LanePool, LaunchConfig, download, framesFrom, launch, onStreams, replay, upload } = await rxcudaUnderTest();
const { nullKernel, setWatcherPause } = await rxcudaUnderTest(undefined, './internal');
// A fixed busy pause of the watcher between passes in which no event completed (rxcuda/internal),
// ns (0: none), in place of its default, which follows how long the events take.
const PAUSE = arg('pause', undefined) === undefined ? undefined : Number(arg('pause'));
if (PAUSE !== undefined && (!Number.isInteger(PAUSE) || PAUSE < 0)) throw new RangeError(`Expected \`--pause\` to be nanoseconds, an integer ≥ 0, got ${arg('pause')}`);
if (PAUSE !== undefined) setWatcherPause(PAUSE);
const device = Device.default();
const cuda = device.kind === 'cuda';
const module = await device.compile(`extern "C" __global__ void add(unsigned n, float a, float* x) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += a;
}`, { name: 'per-value.cu' });
const add = cuda ? module.kernel('add', ['u32', 'f32', 'ptr<f32>']) : nullKernel(module, 'add', ['u32', 'f32', 'ptr<f32>']);
const config = new LaunchConfig({ grid: Math.ceil(LENGTH / 256), block: 256 });
const data = new Float32Array(LENGTH).fill(1);
const pool = new LanePool(device, { lanes: LANES, inFlight: 2 * LANES, ...(SPIN === undefined ? {} : { spin: SPIN }) });
let checksum = 0;

// Each launch's arguments given once, the value's array by a function (the form that allocates
// nothing per launch); with `--args per-value`, one function per launch that returns them all.
const input = (w) => w.buffers.input;
const kernels = () =>
  Array.from({ length: KERNELS }, (_, k) =>
    ARGS === 'per-value' ? launch(add, (w) => ({ config, args: [LENGTH, k, w.buffers.input] })) : launch(add, config, [LENGTH, k, input]));
const frameWork = () => pipe(upload(() => data), ...kernels(), download((w) => w.buffers.input, 'out'), tap((w) => (checksum += w.results.out[0])));
const roads = {
  eager: (values) => range(0, values).pipe(onStreams(pool), frameWork(), count()),
  replay: (values) => range(0, values).pipe(onStreams(pool), replay(frameWork()), count()),
  pinned: (values) =>
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

async function run(road, values) {
  const done = await lastValueFrom(roads[road](values));
  if (done !== values) throw new Error(`${road}: ${done} of ${values} values came back`);
}

// Tables of parts by pipeline: µs (or bytes) per value, each pipeline a column.
const time = {};
const heap = {};
const timeRows = () => [
  { part: 'frames/s', ...Object.fromEntries(Object.entries(time).map(([road, t]) => [road, t.fps])) },
  { part: 'main thread, µs per value (unprofiled)', ...Object.fromEntries(Object.entries(time).map(([road, t]) => [road, t.main])) },
  { part: "rxcuda's JavaScript (the parts of its files)", ...Object.fromEntries(Object.entries(time).map(([road, t]) => [road, OWN.reduce((sum, part) => sum + (t.parts[part] ?? 0), 0)])) },
  ...PART_NAMES.filter((part) => Object.values(time).some((t) => t.parts[part] > 0)).map((part) => ({
    part,
    ...Object.fromEntries(Object.entries(time).map(([road, t]) => [road, t.parts[part] ?? 0])),
  })),
];
const heapRows = () => [
  { part: 'JS heap, bytes per value', ...Object.fromEntries(Object.entries(heap).map(([road, h]) => [road, h.total])) },
  ...PART_NAMES.filter((part) => Object.values(heap).some((h) => h.parts[part] > 0)).map((part) => ({
    part,
    ...Object.fromEntries(Object.entries(heap).map(([road, h]) => [road, h.parts[part] ?? 0])),
  })),
];
const hotRows = [];
const siteRows = [];
for (const road of ROADS) {
  if (!(road in roads)) throw new RangeError(`Expected \`--roads\` to name ${Object.keys(roads).join(', ')}, got ${road}`);
  await run(road, Math.min(VALUES, 3000)); // warm: pools, executables, JIT
  const elu0 = performance.eventLoopUtilization();
  const start = performance.now();
  await run(road, VALUES);
  const seconds = (performance.now() - start) / 1000;
  const main = (performance.eventLoopUtilization(elu0).active * 1000) / VALUES;
  const { us, total, sites: hot } = await profileParts(() => run(road, VALUES));
  // The profile's split, scaled to the unprofiled run's main-thread time (sampling slows it).
  const scale = main / (total / VALUES);
  const parts = Object.fromEntries(Object.entries(us).map(([part, t]) => [part, (t / VALUES) * scale]));
  time[road] = { fps: VALUES / seconds, main, parts };
  for (const [site, t] of hot.slice(0, SITES)) hotRows.push({ road, function: site, us_per_value: (t / VALUES) * scale });
  const sampled = await heapParts(() => run(road, VALUES));
  heap[road] = { total: sampled.total / VALUES, parts: Object.fromEntries(Object.entries(sampled.bytes).map(([part, b]) => [part, b / VALUES])) };
  for (const [site, bytes] of sampled.sites.slice(0, SITES)) siteRows.push({ road, site, bytes_per_value: bytes / VALUES });
}
pool.close();
if (checksum === 0) throw new Error('no result was read');

const what = `${VALUES} values of ${LENGTH} f32, ${KERNELS} ${cuda ? '' : 'null '}kernels each, ${LANES} lanes, ${2 * LANES} in flight, spin ${pool.spin} µs, arguments ${ARGS === 'given' ? 'given once' : 'per value'}${PAUSE !== undefined ? `, watcher pause ${PAUSE} ns` : ''}, ${device.name}`;
report('per-value', `main-thread µs per value by part, each road a column (${what})`, timeRows());
report('per-value-functions', `the functions with the most main-thread time of their own, µs per value (${what})`, hotRows);
report('per-value-heap', `JS heap bytes allocated per value by part, each road a column (${what})`, heapRows(), '≤ 512 bytes per value on the pinned and replay roads');
report('per-value-sites', `the sites that allocate the most, bytes per value (${what})`, siteRows);
