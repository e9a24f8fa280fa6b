// How a Timeline lines device spans up with host spans, on the default device (run it on a GPU
// machine: there the records reach an idle stream in microseconds): a pipeline of frames staged
// by native threads, then, per frame, how long after its staging copy ended its upload started
// and how long after its download ended its host copy started (negative: drawn overlapping,
// which the real work never did), the rows the trace needed, and what the HTML page costs.
// Prints JSON. Run after a build: node scripts/timeline-check.mjs [frames]
import { lastValueFrom, map, range, toArray } from 'rxjs';
import { Device, LanePool, Timeline, download, host, launch, onStreams, upload } from '../dist/src/index.js';

const frames = Number(process.argv[2] ?? 200);
const n = 1 << 17; // 512 KiB of u32: staged by native threads
const device = Device.default();
const module = await device.compile(`extern "C" __global__ void invert(unsigned* x, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = ~x[i];
}`);
const invert = module.kernel('invert', ['ptr<u32>', 'u32'], {
  cpu: (_, [x, count]) => {
    for (let i = 0; i < count; i++) x[i] = ~x[i] >>> 0;
  },
});
const timeline = new Timeline();
const pool = new LanePool(device, { lanes: 3, inFlight: 6, timeline });
await lastValueFrom(
  range(0, frames).pipe(
    map((i) => new Uint32Array(n).fill(i)),
    onStreams(pool),
    upload((frame) => frame),
    launch(invert, (w) => ({ config: { grid: 256, block: 256 }, args: [w.buffers.input, n] })),
    host(() => {}),
    download((w) => w.buffers.input),
    toArray(),
  ),
);
pool.close();

const spans = timeline.spans();
const gaps = { stagingToUpload: [], downloadToCopy: [] };
for (let index = 0; index < frames; index++) {
  const of = (stage) => spans.find((s) => s.index === index && s.stage === stage);
  const [staging, up, down, copy] = ['stage input [workers]', 'upload input [staged]', 'download output [new array]', 'copy output [workers]'].map(of);
  if (staging && up) gaps.stagingToUpload.push(up.start - (staging.start + staging.duration));
  if (down && copy) gaps.downloadToCopy.push(copy.start - (down.start + down.duration));
}
const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN).toFixed(4));
  return { count: sorted.length, minMs: at(0), medianMs: at(0.5), drawnOverlapping: sorted.filter((v) => v < 0).length };
};

const trace = timeline.toChromeTrace();
const rows = new Map();
for (const e of trace.traceEvents) if (e.ph === 'X') (rows.get(e.tid) ?? rows.set(e.tid, []).get(e.tid)).push(e);
let overlaps = 0;
for (const events of rows.values()) {
  events.sort((a, b) => a.ts - b.ts);
  for (let i = 1; i < events.length; i++) if (events[i].ts < events[i - 1].ts + events[i - 1].dur - 0.001) overlaps++;
}
const started = performance.now();
const html = timeline.toHtml({ title: `timeline check on ${device.name}` });
console.log(JSON.stringify({
  device: `${device.name} (${device.kind})`,
  frames,
  spans: spans.length,
  gaps: { stagingToUpload: stats(gaps.stagingToUpload), downloadToCopy: stats(gaps.downloadToCopy) },
  trace: { threads: rows.size, overlappingPairsOnOneThread: overlaps, threadNames: trace.traceEvents.filter((e) => e.name === 'thread_name').map((e) => e.args.name) },
  html: { bytes: html.length, ms: Number((performance.now() - started).toFixed(1)) },
}, null, 2));
