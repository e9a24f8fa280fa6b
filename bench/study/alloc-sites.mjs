// Study: where a pinned pipeline (framesFrom → upload → launch → download { lend } → tap) allocates,
// per frame, by function: V8's sampling heap profiler, counting what young-generation collections
// free too. What a frame allocates sets how often the main thread pauses to scavenge.
//   node bench/study/alloc-sites.mjs [frames]
import inspector from 'node:inspector';
import { count, lastValueFrom, tap } from 'rxjs';
import { Device, LanePool, download, framesFrom, launch, upload } from 'rxcuda';

const WORDS = 1024;
const N = Number(process.argv[2] ?? 10000);
const device = Device.default();
const module = await device.compile('extern "C" __global__ void touch(unsigned* x, unsigned n) {}', { name: 'alloc-sites.cu' });
const touch = module.kernel('touch', ['ptr', 'u32'], { cpu: (_, [x]) => void (x[0] += 1) });
const config = { grid: 1, block: 1 };
const pool = new LanePool(device, { lanes: 3, inFlight: 6 });
let sum = 0;
const pipeline = (frames) =>
  framesFrom(pool, { dtype: 'u32', length: WORDS, count: frames }, (frame, i) => void (frame.data[0] = i)).pipe(
    upload((frame) => frame),
    launch(touch, (w) => ({ config, args: [w.buffers.input, WORDS] })),
    download((w) => w.buffers.input, 'output', { lend: 'release' }),
    tap((w) => {
      sum += w.results.output.data[0];
      w.results.output.release();
    }),
    count(),
  );
await lastValueFrom(pipeline(3000)); // warm: pools, JIT

const session = new inspector.Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
await post('HeapProfiler.enable');
await post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
await lastValueFrom(pipeline(N));
const { profile } = await post('HeapProfiler.stopSampling');
pool.close();

const bySite = new Map();
const walk = (node) => {
  const f = node.callFrame;
  const site = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
  bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
  node.children.forEach(walk);
};
walk(profile.head);
const total = [...bySite.values()].reduce((a, b) => a + b, 0);
console.log(`${device.name}: ${(total / N).toFixed(0)} bytes allocated per frame (sampled), by site:`);
for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${(bytes / N).toFixed(0).padStart(7)}  ${site}`);
if (!sum) throw new Error('nothing read');
