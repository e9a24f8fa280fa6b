// Study: how a pipeline's garbage behaves, by how many of its stages run (0 to 4 of upload, launch,
// download, tap), on the default device; run it under V8's GC trace and sum what was promoted:
//   node --trace-gc-nvp bench/study/gc-stages.mjs 4 | grep gc=s
// ('streams' as a second argument feeds plain arrays through onStreams instead of pinned frames;
// ROAD=new downloads into new arrays instead of lending.) Objects that outlive a scavenge are
// copied, and promoted at the second: at thousands of values a second, each promoted kilobyte per
// value becomes milliseconds of main-thread pause.
import { lastValueFrom, tap, count, range, map } from 'rxjs';
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { Device, LanePool, download, framesFrom, launch, upload, onStreams, host } from 'rxcuda';
const WORDS = 1024;
const device = Device.default();
const module = await device.compile(`extern "C" __global__ void touch(unsigned* x, unsigned n) {}`, { name: 's.cu' });
const touch = module.kernel('touch', ['ptr', 'u32'], { cpu: (_, [x]) => { x[0] += 1; } });
const config = { grid: 1, block: 1 };
const stages = +process.argv[2];
const pool = new LanePool(device, { lanes: 3, inFlight: 6 });
let sum = 0;
function pipeline(frames) {
  const ops = [
    upload((frame) => frame),
    launch(touch, (w) => ({ config, args: [w.buffers.input, WORDS] })),
    process.env.ROAD === 'new' ? download((w) => w.buffers.input, 'output') : download((w) => w.buffers.input, 'output', { lend: 'release' }),
    tap((w) => { if (process.env.ROAD === 'new') sum += w.results.output[0]; else { sum += w.results.output.data[0]; w.results.output.release(); } }),
  ].slice(0, stages);
  const src = process.argv[3] === 'streams'
    ? range(0, frames).pipe(map(() => new Uint32Array(4)), onStreams(pool, { lanes: 3, inFlight: 6 }))
    : framesFrom(pool, { dtype: 'u32', length: WORDS, count: frames, lanes: 3, inFlight: 6 }, (frame, i) => { frame.data[0] = i; });
  return src.pipe(...ops, count());
}
await lastValueFrom(pipeline(3000));
let promoted = 0, scavenges = 0, pause = 0;
const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) { scavenges++; pause += e.duration; } });
obs.observe({ entryTypes: ['gc'] });
const N = 20000;
const h0 = v8.getHeapStatistics();
const t = performance.now();
await lastValueFrom(pipeline(N));
const ms = performance.now() - t;
await new Promise((r) => setTimeout(r, 10));
console.log(`stages ${stages} ${process.argv[3] ?? 'frames'}: ${(ms * 1000 / N).toFixed(1)} us/frame, ${scavenges} gcs, ${(pause / scavenges).toFixed(2)} ms avg, heap after ${(v8.getHeapStatistics().used_heap_size / 2 ** 20).toFixed(1)} MiB`);
pool.close();
