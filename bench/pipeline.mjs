// bench/pipeline: frames of 8 MiB through upload → kernel → download on 3 lanes, by each road the
// bytes can take between JavaScript and the device, against the copy engines' bound and against
// C++ programs doing the same with 3 streams, in the same process:
// - pinned in, lent out: the producer fills pinned frames from the lanes' pools (framesFrom) and
//   the consumer reads results in place (download { lend }); no host copy at all. Measured
//   against a C++ program with pinned frames whose copies overlap in both directions.
// - registered in, lent out: one array of the user's, page-locked once (device.registerHost).
// - pageable in and out: plain arrays, copied into and out of pinned staging by native threads.
// - main-thread copies (the road before pinned frames and native copies, as reference): the
//   producer copies each frame into pinned memory, the consumer each result out, on the main
//   thread; measured against the C++ program that does the same two memcpys per frame.
// Beside the copy bound (one direction alone), the duplex bound: what the link gives each direction
// while both copy at once, measured in the same run; no program moving a frame each way can pass it.
// The producer writes a frame header only (the transport is measured, not the producer). Each road
// is timed on a pool kept from run to run (frames_per_s, the best of the rounds) and on a pool made
// for each run (cold_frames_per_s: new streams and device memory each run; the pinned blocks of the
// pool closed before it are still pinned, as for any pipeline subscribed again within a second).
// Against a C++ program, of_native compares the best runs and paired_of_native is the median of
// each round's ratio (the two ran back to back), which drift between rounds weighs on less.
//
// With `--devices N` it compares N devices against 1 instead (see pipeline-devices.mjs), and
// `--rounds R` sets the kernel-bound case's work per element (default 4096):
//   node bench/pipeline.mjs --devices 2
// With `--words`, the pools watch their values through a word each lane's stream writes (the
// watcher reads memory, no driver query), where the default queries an event per value.
import { lastValueFrom, range, map, count, tap } from 'rxjs';
import { Device, LanePool, copyThreads, download, framesFrom, launch, onStreams, upload } from 'rxcuda';
import { setWatchRoad } from 'rxcuda/internal';
import { baseline, median, report } from './support.mjs';
import { compareDevices } from './pipeline-devices.mjs';

const WATCH_ROAD = process.argv.includes('--words') ? 'words' : 'events';
setWatchRoad(WATCH_ROAD);

const devicesArg = process.argv.indexOf('--devices');
if (devicesArg >= 0) {
  const wanted = Number(process.argv[devicesArg + 1]);
  if (!Number.isInteger(wanted) || wanted < 1) throw new RangeError(`Expected \`--devices\` to be a positive integer, got ${process.argv[devicesArg + 1]}`);
  const roundsArg = process.argv.indexOf('--rounds'); // the kernel-bound case's work per element
  await compareDevices(wanted, roundsArg >= 0 ? { rounds: Number(process.argv[roundsArg + 1]) } : {});
  process.exit(0);
}

const FRAME_BYTES = 8 * 2 ** 20;
const WORDS = FRAME_BYTES / 4;
// Long enough that the throughput measured is the steady state's: a pipeline's start (subscribing,
// the first frame's round trip) takes about half a millisecond, which at 600 frames (0.1 s) weighed
// about half a percent.
const FRAMES = 2400;
const ROUNDS = 5;
const LANES = 3;
const IN_FLIGHT = 2 * LANES;

const device = Device.default();
const module = await device.compile(`extern "C" __global__ void touch(unsigned* x, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] += 1;
}`, { name: 'bench-pipeline.cu' });
const touch = module.kernel('touch', ['ptr', 'u32']);
const config = { grid: Math.min(1024, WORDS / 256), block: 256 };
const source = new Uint32Array(WORDS).fill(1);
const result = new Uint32Array(WORDS); // as the C++ program, one array the results are copied into
let checksum = 0;

const SPIN_US = 2000; // far longer than a frame's round trip: the watcher sees every completion

/** Pinned frames filled in place, results lent, each completion watched for `spin` µs. */
const pinnedFrames = (frames, lanes, spin) =>
  framesFrom(lanes, { dtype: 'u32', length: WORDS, count: frames, lanes: LANES, inFlight: IN_FLIGHT, spin }, (frame, i) => {
    frame.data[0] = i; // the frame header
  }).pipe(
    upload((frame) => frame),
    launch(touch, (w) => ({ config, args: [w.buffers.input, WORDS] })),
    download((w) => w.buffers.input, 'output', { lend: 'release' }),
    // As the C++ program does with its slot: read what is needed, then give the memory back.
    tap((w) => {
      checksum += w.results.output.data[0];
      w.results.output.release();
    }),
  );

// Each road runs on `lanes`: a LanePool kept from run to run (warm: its memory allocated once, as
// the C++ programs allocate theirs before their clocks start), or the device, for a pool made and
// closed with each run (cold: what one short-lived subscription pays).
const roads = {
  /** Pinned frames filled in place, results lent: no host copy. */
  pinned: (frames, lanes) => pinnedFrames(frames, lanes, 0),
  /** The same, each value's completion watched by a native thread (LanePool `spin`). */
  pinnedSpin: (frames, lanes) => pinnedFrames(frames, lanes, SPIN_US),
  /** One array of the user's, registered once; results lent. */
  registered: (frames, lanes) =>
    range(0, frames).pipe(
      map(() => registered),
      onStreams(lanes, { lanes: LANES, inFlight: IN_FLIGHT }),
      upload((frame) => frame),
      launch(touch, (w) => ({ config, args: [w.buffers.input, WORDS] })),
      download((w) => w.buffers.input, 'output', { lend: 'next' }),
      tap((w) => (checksum += w.results.output.data[0])),
    ),
  /** Plain arrays in and out: native threads copy into and out of pinned staging. */
  pageable: (frames, lanes) =>
    range(0, frames).pipe(
      map(() => source),
      onStreams(lanes, { lanes: LANES, inFlight: IN_FLIGHT }),
      upload((frame) => frame),
      launch(touch, (w) => ({ config, args: [w.buffers.input, WORDS] })),
      download((w) => w.buffers.input, 'output', { into: () => result }),
    ),
  /** The reference: both copies on the main thread, LANES frames in flight, as before. */
  mainThread: (frames, lanes) =>
    framesFrom(lanes, { dtype: 'u32', length: WORDS, count: frames, lanes: LANES, inFlight: LANES }, (frame) => {
      frame.data.set(source);
    }).pipe(
      upload((frame) => frame),
      launch(touch, (w) => ({ config, args: [w.buffers.input, WORDS] })),
      download((w) => w.buffers.input, 'output', { lend: 'release' }),
      tap((w) => {
        result.set(w.results.output.data);
        w.results.output.release();
      }),
    ),
};

async function timed(road, frames, lanes) {
  const start = performance.now();
  const done = await lastValueFrom(roads[road](frames, lanes).pipe(count()));
  if (done !== frames) throw new Error(`${road}: ${done} of ${frames} frames came back`);
  return frames / ((performance.now() - start) / 1000);
}

// Where the driver cannot page-lock user memory (some sandboxes), that road is left out, said why.
let registered;
let unregistered = '';
try {
  registered = device.registerHost(new Uint32Array(WORDS).fill(1));
} catch (error) {
  unregistered = `registerHost failed: ${error.message}`;
  delete roads.registered;
}
const poolOptions = (road) => ({ lanes: LANES, inFlight: road === 'mainThread' ? LANES : IN_FLIGHT, spin: road === 'pinnedSpin' ? SPIN_US : 0 });
const pools = Object.fromEntries(Object.keys(roads).map((road) => [road, new LanePool(device, poolOptions(road))]));
for (const road of Object.keys(roads)) await timed(road, 20, pools[road]); // warm-up: pools, JIT
baseline.pipelineBaseline(touch.handle, 20, FRAME_BYTES, LANES);
baseline.pinnedPipelineBaseline(touch.handle, 20, FRAME_BYTES, LANES, IN_FLIGHT);

const ours = Object.fromEntries(Object.keys(roads).map((road) => [road, []]));
const cold = Object.fromEntries(Object.keys(roads).map((road) => [road, []]));
const nativeCopies = [];
const nativePinned = [];
// The link's rates, measured after each round's C++ run; the best of the rounds is the bound (one
// measurement of 20 copies can be caught by a disturbance, and a bound too low flatters every road).
const bandwidth = { h2dGBps: 0, d2hGBps: 0, duplexGBps: 0 };
for (let round = 0; round < ROUNDS; round++) {
  for (const road of Object.keys(roads)) ours[road].push(await timed(road, FRAMES, pools[road]));
  const native = baseline.pipelineBaseline(touch.handle, FRAMES, FRAME_BYTES, LANES);
  nativeCopies.push(FRAMES / native.seconds);
  nativePinned.push(FRAMES / baseline.pinnedPipelineBaseline(touch.handle, FRAMES, FRAME_BYTES, LANES, IN_FLIGHT).seconds);
  for (const key of Object.keys(bandwidth)) bandwidth[key] = Math.max(bandwidth[key], native[key]);
}
for (const pool of Object.values(pools)) pool.close();
// Last, as what a closed pool frees (its device memory, its pinned blocks after a second unused)
// weighs on the runs after it, as it would on a real one.
for (let round = 0; round < 3; round++) for (const road of Object.keys(roads)) cold[road].push(await timed(road, FRAMES, device));
registered?.close();
const best = (xs) => Math.max(...xs);
// With copies in both directions overlapping, a frame needs at least the longer of the two.
const copyBound = (1e9 * Math.min(bandwidth.h2dGBps, bandwidth.d2hGBps)) / FRAME_BYTES;
const duplexBound = (1e9 * bandwidth.duplexGBps) / FRAME_BYTES;
const paired = (xs, natives) => median(xs.map((x, i) => x / natives[i]));
const row = (road, nativeName, native, target) => road in roads ? {
  road,
  frames_per_s: best(ours[road]),
  of_copy_bound: best(ours[road]) / copyBound,
  of_duplex_bound: best(ours[road]) / duplexBound,
  cold_frames_per_s: best(cold[road]),
  native: nativeName,
  native_frames_per_s: native ? best(native) : undefined,
  native_of_duplex_bound: native ? best(native) / duplexBound : undefined,
  of_native: native ? best(ours[road]) / best(native) : undefined,
  paired_of_native: native ? paired(ours[road], native) : undefined,
  target,
} : { road, target: unregistered };
report('pipeline', `8 MiB frames, upload → kernel → download, ${LANES} lanes (cold: a pool made and closed with each run), ${device.name}; copy bound ${copyBound.toFixed(0)} frames/s (h2d ${bandwidth.h2dGBps.toFixed(1)} GB/s, d2h ${bandwidth.d2hGBps.toFixed(1)} GB/s); duplex bound ${duplexBound.toFixed(0)} frames/s (${bandwidth.duplexGBps.toFixed(1)} GB/s each way); ${ROUNDS} rounds; ${copyThreads()} copy threads; values watched through ${WATCH_ROAD}`, [
  row('pinned', 'pinned frames, 3 streams', nativePinned, '≥ 0.8 of copy bound, ≥ 1.0 of native'),
  row('pinnedSpin', 'pinned frames, 3 streams', nativePinned, 'the same, with `spin`'),
  row('registered', 'pinned frames, 3 streams', nativePinned, ''),
  row('pageable', '', undefined, '≥ 0.5 of copy bound'),
  row('mainThread', 'memcpy in and out, 3 streams', nativeCopies, 'reference (ratio ≥ 0.9 before)'),
], 'pinned ≥ 0.8 × copy bound and ≥ 1.0 × native pinned; pageable ≥ 0.5 × copy bound');
if (checksum === 0) throw new Error('no result was read');
