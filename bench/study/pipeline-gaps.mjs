// Study: where the pinned road of bench/pipeline loses against the C++ pinned program, in one
// process: completion times per frame, the gaps between them, and GC pauses during rxcuda's runs,
// for rxcuda (default, and with the pool's `spin`) and for the C++ program told to learn of each
// frame's completion in other ways (mode: 0 events it waits on, as in bench/pipeline; 4 a host
// function in the frame's stream; 5 a host function on a side stream behind an event; 6 a word the
// stream writes; 9 a thread polling events; 10 events made with CU_EVENT_BLOCKING_SYNC, waited on
// asleep; 11 a thread asleep on each of those events in order, waking the main thread).
// ROUNDS=n sets the rounds (default 3), MODES=0,5 the C++ program's modes (default all), and
// IN_FLIGHT=6,12 the frames in flight over the 3 lanes (default 6):
//   node bench/study/pipeline-gaps.mjs
import { lastValueFrom, tap, count } from 'rxjs';
import { PerformanceObserver } from 'node:perf_hooks';
import { Device, LanePool, download, framesFrom, launch, upload } from 'rxcuda';
import { baseline, median, percentile } from '../support.mjs';

const FRAME_BYTES = 8 * 2 ** 20;
const WORDS = FRAME_BYTES / 4;
const device = Device.default();
const module = await device.compile(`extern "C" __global__ void touch(unsigned* x, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] += 1;
}`, { name: 'study.cu' });
const touch = module.kernel('touch', ['ptr', 'u32'], { cpu: (_, [x]) => { x[0] += 1; } });
const config = { grid: Math.min(1024, WORDS / 256), block: 256 };
let checksum = 0;
let gcMs = 0, gcCount = 0;
new PerformanceObserver((list) => { for (const e of list.getEntries()) { gcMs += e.duration; gcCount++; } }).observe({ entryTypes: ['gc'] });

function stats(name, times, seconds, frames) {
  const sorted = [...times].sort((a, b) => a - b);
  const gaps = [];
  for (let i = 1; i < sorted.length; i++) gaps.push((sorted[i] - sorted[i - 1]) * 1e6);
  const lo = Math.floor(frames * 0.1), hi = Math.floor(frames * 0.9);
  return {
    name, fps: frames / seconds,
    steady_fps: (hi - lo) / (sorted[hi] - sorted[lo]),
    first_us: sorted[0] * 1e6,
    gap_p99: percentile(gaps, 99), gap_max: Math.max(...gaps),
    over_500us: gaps.filter((g) => g > 500).length,
  };
}

function native(frames, inFlight, mode) {
  const times = new Float64Array(frames);
  const { seconds } = baseline.pinnedPipelineBaseline(touch.handle, frames, FRAME_BYTES, 3, inFlight, times, mode);
  return stats(`native if${inFlight} ${['', 'split', 'queues', 'hostfn spin', 'hostfn cv', 'side hostfn cv', 'write value', 'side hostfn spin', '', 'event poller', 'blocking events', 'blocking waiter'][mode]}`, times, seconds, frames);
}

const pools = new Map();
async function ours(frames, lanes, inFlight, spin = 0) {
  const key = `${lanes}/${inFlight}/${spin}`;
  if (!pools.has(key)) pools.set(key, new LanePool(device, { lanes, inFlight, spin }));
  const pool = pools.get(key);
  const times = new Float64Array(frames);
  let k = 0;
  const g0 = gcMs, c0 = gcCount;
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  let firstFill = 0; // when the first frame was handed to the producer: the pipeline's start-up
  const start = performance.now();
  await lastValueFrom(framesFrom(pool, { dtype: 'u32', length: WORDS, count: frames, lanes, inFlight }, (frame, i) => {
    if (i === 0) firstFill = performance.now() - start;
    frame.data[0] = i;
  }).pipe(
    upload((frame) => frame),
    launch(touch, (w) => ({ config, args: [w.buffers.input, WORDS] })),
    download((w) => w.buffers.input, 'output', { lend: 'release' }),
    tap((w) => { checksum += w.results.output.data[0]; w.results.output.release(); times[k++] = (performance.now() - start) / 1000; }),
    count()));
  const seconds = (performance.now() - start) / 1000;
  const elu = performance.eventLoopUtilization(elu0).utilization;
  const cpu = process.cpuUsage(cpu0);
  return { ...stats(`ours l${lanes} if${inFlight}${spin ? ' spin' : ''}`, times, seconds, frames), fill_us: firstFill * 1000, gc_ms: gcMs - g0, gcs: gcCount - c0, elu, cpu_us_per_frame: (cpu.user + cpu.system) / frames };
}

for (let i = 0; i < 2; i++) { await ours(40, 3, 6); await ours(40, 3, 6, 2000); native(40, 6, 0); native(40, 6, 2); }
const rows = [];
for (let round = 0; round < (process.env.ROUNDS ? +process.env.ROUNDS : 3); round++) {
  for (const frames of [600, 2400]) for (const inFlight of (process.env.IN_FLIGHT ?? '6').split(',').map(Number)) {
    rows.push({ frames, ...(await ours(frames, 3, inFlight)) });
    for (const mode of (process.env.MODES ?? '0,4,5,6,9,10,11').split(',').map(Number)) rows.push({ frames, ...native(frames, inFlight, mode) });
    rows.push({ frames, ...(await ours(frames, 3, inFlight, 2000)) });
  }
}
console.table(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? Number(v.toFixed(1)) : v]))));
for (const p of pools.values()) p.close();
if (!checksum) throw new Error('nothing read');
const bw = baseline.pipelineBaseline(touch.handle, 20, FRAME_BYTES, 3);
console.log(`copy bound ${(1e9 * Math.min(bw.h2dGBps, bw.d2hGBps) / FRAME_BYTES).toFixed(0)} frames/s (h2d ${bw.h2dGBps.toFixed(1)}, d2h ${bw.d2hGBps.toFixed(1)} GB/s); both directions at once ${(1e9 * bw.duplexGBps / FRAME_BYTES).toFixed(0)} frames/s (${bw.duplexGBps.toFixed(1)} GB/s each way)`);
