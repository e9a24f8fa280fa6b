// bench/small-frames: small values at the driver's pace. Frames of 1 KiB, 4 KiB and 64 KiB of
// floats through the pipeline of bench/graph's graph-pipeline (upload of a plain array → 20
// kernels → download into a new array), on 1, 4 and 16 lanes with two frames in flight per lane,
// eager (one launch at a time) and replayed (one graph launch per frame), against a C++ program
// doing the same work through the driver API in the same process (bench/native/small-frames.cpp:
// as many streams, two frames in flight per stream, the host waiting for each stream's oldest
// frame; eager, and one graph launch per frame). The two sides alternate in rounds; the table
// gives the median frames/s of each, and the median of the rounds' ratios. Main-thread time per
// frame is rxcuda's event-loop utilization (busy time over frames) and the C++ program's thread
// CPU time (which counts the driver's spinning in cuEventSynchronize too), with the part of it
// inside the C++ program's launch and copy calls (bench/study/per-value gives rxcuda's). Every result is
// checked. On a machine without a GPU it runs on the host device, without the C++ program.
// Its pools watch each value's completion (LanePool's default `spin`); with `--spin µs`, rxcuda
// runs each pipeline a second time on a pool with that `spin` (`--spin 0`: completions through the
// driver's host callbacks), in the columns *_spin_fps.
// `--pause ns` fixes the addon's watcher's busy pause between passes in which no event completed
// (0: none), in place of its default, which follows how long the events take. `--words` runs each
// rxcuda pipeline a second time with its values watched through a word each lane's stream writes (the
// watcher reads memory, no driver query), in the columns *_words_*; `--native-watchers` runs the
// C++ program twice more, with a second thread that watches its frames, querying their events back
// to back (native_*_events_*: rxcuda's watcher paces its queries, this is the unpaced cost) or
// reading words its streams write (native_*_words_*). Its launches take their arguments given once
// (`launch(add, config, [n, k, (w) => w.buffers.input])`); `--per-value` runs each rxcuda pipeline a
// second time with one function per launch that makes them for each value, in the columns
// *_per_value_*.
//   node bench/small-frames.mjs [--frames N] [--rounds R] [--bytes 1024,4096,65536] [--lanes 1,4,16] [--kernels 20] [--spin µs] [--pause ns] [--words] [--native-watchers] [--per-value]
// JSON to $OUT/small-frames.json (or bench/results/). Per-part time per value: bench/study/per-value.mjs.
import { pipe, range, lastValueFrom, count, tap } from 'rxjs';
import { baseline, median, report, rxcudaUnderTest } from './support.mjs';

const { Device, LanePool, LaunchConfig, onStreams, upload, launch, download, replay } = await rxcudaUnderTest();
const { setWatcherPause, setWatchRoad, submissionCounts } = await rxcudaUnderTest(undefined, './internal');

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const list = (text) => text.split(',').map(Number);
const device = Device.default();
const cuda = device.kind === 'cuda';
// Long enough on a GPU that a run's start (subscribing, the first round trip) weighs little; the
// host device runs its kernels in JavaScript, 20 host steps per frame.
const FRAMES = Number(arg('frames', cuda ? 20000 : 400));
const ROUNDS = Number(arg('rounds', cuda ? 5 : 2));
const BYTES = list(arg('bytes', '1024,4096,65536'));
const LANES = list(arg('lanes', '1,4,16'));
const KERNELS = Number(arg('kernels', 20));
// A second pool per configuration, with this `spin` (0: completions through host callbacks).
const SPIN = arg('spin', undefined) === undefined ? undefined : Number(arg('spin'));
if (SPIN !== undefined && (!Number.isInteger(SPIN) || SPIN < 0)) throw new RangeError(`Expected \`--spin\` to be microseconds, an integer ≥ 0, got ${arg('spin')}`);
const PAUSE = arg('pause', undefined) === undefined ? undefined : Number(arg('pause'));
if (PAUSE !== undefined && (!Number.isInteger(PAUSE) || PAUSE < 0)) throw new RangeError(`Expected \`--pause\` to be nanoseconds, an integer ≥ 0, got ${arg('pause')}`);
if (PAUSE !== undefined) setWatcherPause(PAUSE);
const WORDS = process.argv.includes('--words');
const PER_VALUE = process.argv.includes('--per-value');
const NATIVE_WATCHERS = process.argv.includes('--native-watchers');
for (const [name, values] of [['frames', [FRAMES]], ['rounds', [ROUNDS]], ['kernels', [KERNELS]], ['bytes', BYTES], ['lanes', LANES]])
  for (const v of values) if (!Number.isInteger(v) || v < 1 || (name === 'bytes' && v % 4 !== 0))
    throw new RangeError(`Expected \`--${name}\` to be positive integers${name === 'bytes' ? ' (multiples of 4)' : ''}, got ${arg(name)}`);

const module = await device.compile(`extern "C" __global__ void add(unsigned n, float a, float* x) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += a;
}`, { name: 'bench-small-frames.cu' });
const add = module.kernel('add', ['u32', 'f32', 'ptr<f32>'], {
  cpu: (_, [n, a, x]) => {
    for (let i = 0; i < n; i++) x[i] = Math.fround(x[i] + a);
  },
});
// Every frame is ones; each kernel k adds k, so every element of every result is this.
const EXPECTED = 1 + (KERNELS * (KERNELS - 1)) / 2;
const contextStream = device.createStream({ nonBlocking: true }); // the C++ program's context

const input = (w) => w.buffers.input;

function pipeline(floats) {
  const source = new Float32Array(floats).fill(1);
  const config = new LaunchConfig({ grid: Math.ceil(floats / 256), block: 256 });
  const frameWork = (launchOf) => pipe(upload(() => source), ...Array.from({ length: KERNELS }, (_, k) => launchOf(k)), download((w) => w.buffers.input, 'out'));
  const work = frameWork((k) => launch(add, config, [floats, k, input]));
  const perValue = frameWork((k) => launch(add, (w) => ({ config, args: [floats, k, w.buffers.input] })));
  return { source, work, perValue };
}

/** frames/s of rxcuda's pipeline on `pool`, and its main-thread µs per frame; every result checked. */
async function ours(pool, { work }, replayed, road = 'events') {
  setWatchRoad(road);
  let wrong = 0;
  const elu0 = performance.eventLoopUtilization();
  const given = pool.stats.watchesGivenUp;
  const start = performance.now();
  const done = await lastValueFrom(
    range(0, FRAMES).pipe(
      onStreams(pool),
      replayed ? replay(work) : work,
      tap((w) => {
        const out = w.results.out;
        if (out[0] !== EXPECTED || out[out.length - 1] !== EXPECTED) wrong++;
      }),
      count(),
    ),
  );
  const seconds = (performance.now() - start) / 1000;
  const elu = performance.eventLoopUtilization(elu0);
  if (done !== FRAMES || wrong > 0) throw new Error(`rxcuda ${replayed ? 'replay' : 'eager'}: ${done} of ${FRAMES} frames came back, ${wrong} wrong`);
  if (pool.stats.watchesGivenUp !== given) gaveUp.add(`${pool.spin} µs`);
  return { fps: FRAMES / seconds, mainUs: (elu.active * 1000) / FRAMES };
}

/**
 * The C++ program's frames/s, main-thread CPU µs per frame, and µs per frame inside its launch
 * calls (the kernel launches, or cuGraphLaunch) and its copies' calls.
 */
function native(lanes, source, graph, watcher = 0) {
  const run = baseline.smallFrames(add.handle, contextStream.handle, source, { frames: FRAMES, kernels: KERNELS, lanes, graph, watcher });
  if (run.last !== EXPECTED) throw new Error(`the C++ program's ${graph ? 'graph' : 'eager'} results are wrong: ${run.last}, not ${EXPECTED}`);
  const perFrame = (seconds) => (seconds * 1e6) / FRAMES;
  return { fps: FRAMES / run.seconds, mainUs: perFrame(run.threadSeconds), launchUs: perFrame(run.launchSeconds), copyUs: perFrame(run.copySeconds) };
}

/** The pools' `spin` where a watch gave up during a measured run (then values were notified). */
const gaveUp = new Set();
const configs = BYTES.flatMap((bytes) => LANES.map((lanes) => ({ bytes, lanes })));
for (const config of configs) {
  config.pool = new LanePool(device, { lanes: config.lanes, inFlight: 2 * config.lanes });
  if (SPIN !== undefined) config.spinPool = new LanePool(device, { lanes: config.lanes, inFlight: 2 * config.lanes, spin: SPIN });
  config.pipeline = pipeline(config.bytes / 4);
  config.runs = {
    eager: [], replay: [], nativeEager: [], nativeGraph: [], eagerSpin: [], replaySpin: [], eagerWords: [], replayWords: [], eagerPerValue: [], replayPerValue: [],
    nativeEagerEvents: [], nativeGraphEvents: [], nativeEagerWords: [], nativeGraphWords: [],
  };
  // Warm: the pool's memory, the executables, the JIT, the C++ program's first graphs.
  for (const pool of [config.pool, config.spinPool]) {
    if (!pool) continue;
    for (const work of PER_VALUE ? [config.pipeline.work, config.pipeline.perValue] : [config.pipeline.work]) {
      await ours(pool, { work }, false);
      await ours(pool, { work }, true);
    }
  }
  if (cuda) native(config.lanes, config.pipeline.source, false), native(config.lanes, config.pipeline.source, true);
}
for (let round = 0; round < ROUNDS; round++)
  for (const { pool, spinPool, pipeline: p, lanes, runs } of configs) {
    for (const replayed of [false, true]) {
      const [mine, theirs] = replayed ? ['replay', 'nativeGraph'] : ['eager', 'nativeEager'];
      runs[mine].push(await ours(pool, p, replayed));
      if (cuda) runs[theirs].push(native(lanes, p.source, replayed));
      if (spinPool) runs[`${mine}Spin`].push(await ours(spinPool, p, replayed));
      if (WORDS) runs[`${mine}Words`].push(await ours(pool, p, replayed, 'words'));
      if (PER_VALUE) runs[`${mine}PerValue`].push(await ours(pool, { work: p.perValue }, replayed));
      if (cuda && NATIVE_WATCHERS) {
        runs[`${theirs}Events`].push(native(lanes, p.source, replayed, 1));
        runs[`${theirs}Words`].push(native(lanes, p.source, replayed, 2));
      }
    }
  }
setWatchRoad('events');

const med = (runs, key = 'fps') => (runs.length ? median(runs.map((r) => r[key])) : undefined);
const paired = (xs, natives) => (xs.length && natives.length ? median(xs.map((x, i) => x.fps / natives[i].fps)) : undefined);
const defined = (row) => Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined));
const rows = configs.map(({ bytes, lanes, runs }) => defined({
  frame: bytes >= 1024 ? `${bytes / 1024} KiB` : `${bytes} B`,
  lanes,
  eager_fps: med(runs.eager),
  native_eager_fps: med(runs.nativeEager),
  eager_of_native: paired(runs.eager, runs.nativeEager),
  replay_fps: med(runs.replay),
  native_graph_fps: med(runs.nativeGraph),
  replay_of_native: paired(runs.replay, runs.nativeGraph),
  eager_main_us: med(runs.eager, 'mainUs'),
  native_eager_main_us: med(runs.nativeEager, 'mainUs'),
  replay_main_us: med(runs.replay, 'mainUs'),
  native_graph_main_us: med(runs.nativeGraph, 'mainUs'),
  native_eager_launch_us: med(runs.nativeEager, 'launchUs'),
  native_eager_copy_us: med(runs.nativeEager, 'copyUs'),
  native_graph_launch_us: med(runs.nativeGraph, 'launchUs'),
  eager_spin_fps: med(runs.eagerSpin),
  eager_spin_of_native: paired(runs.eagerSpin, runs.nativeEager),
  replay_spin_fps: med(runs.replaySpin),
  replay_spin_of_native: paired(runs.replaySpin, runs.nativeGraph),
  eager_words_fps: med(runs.eagerWords),
  eager_words_of_native: paired(runs.eagerWords, runs.nativeEager),
  replay_words_fps: med(runs.replayWords),
  replay_words_of_native: paired(runs.replayWords, runs.nativeGraph),
  replay_words_main_us: med(runs.replayWords, 'mainUs'),
  eager_per_value_fps: med(runs.eagerPerValue),
  eager_per_value_of_native: paired(runs.eagerPerValue, runs.nativeEager),
  replay_per_value_fps: med(runs.replayPerValue),
  replay_per_value_of_native: paired(runs.replayPerValue, runs.nativeGraph),
  native_eager_events_fps: med(runs.nativeEagerEvents),
  native_eager_words_fps: med(runs.nativeEagerWords),
  native_graph_events_fps: med(runs.nativeGraphEvents),
  native_graph_words_fps: med(runs.nativeGraphWords),
  native_graph_events_launch_us: med(runs.nativeGraphEvents, 'launchUs'),
  native_graph_words_launch_us: med(runs.nativeGraphWords, 'launchUs'),
}));
for (const { pool, spinPool } of configs) pool.close(), spinPool?.close();
contextStream.close();
// Device threads (an earlier build has none) and how often the main thread waited for one.
const submission = submissionCounts?.();
const why = (cuda ? '' : '; no GPU: the host device, without the C++ program') + (submission ? `; ${submission.threads} device threads, the main thread waited for them ${submission.waits} times` : '') + (PAUSE !== undefined ? `; watcher pause ${PAUSE} ns` : '') + (gaveUp.size ? `; watches gave up with spin ${[...gaveUp].join(', ')}` : '');
report(
  'small-frames',
  `frames/s of ${FRAMES} frames, upload → ${KERNELS} kernels → download, 2 frames in flight per lane, ${ROUNDS} rounds (medians), ${device.name}${why}`,
  rows,
  'replay ≥ 1.0 × the C++ graph program; eager ≥ 1.5 × the C++ eager program (4 and 16 lanes)',
);
