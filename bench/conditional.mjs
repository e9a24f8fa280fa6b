// bench/conditional: loops and branches on the device against the same done from the host, rxcuda
// against a C++ program doing the same through the driver API in the same process
// (bench/native/conditional.cpp, with the kernels rxcuda compiled and linked).
// - while: a captured graph that sets a counter to N, then loops (whileLoop) around one small
//   kernel that decrements it and sets the loop's condition while it is not zero, N = 1..10^4;
//   bounded (maxIterations: N), against the C++ graph of the same structure built with rxcuda's
//   own guard and reset kernels, and unbounded, against a plain WHILE. ns per launch (to the end
//   of the launch's work) and per iteration, in bursts of launches.
// - host loop: the same loop driven from the host: the kernel (writing whether to go on into a
//   pinned word), a wait, the word read, again. rxcuda waits with `synchronized({ spin })` and
//   with `synchronized()` (the driver's host callbacks); the C++ program with cuStreamSynchronize
//   and with cuStreamQuery back to back. ns per iteration, and its ratio to the bounded WHILE's
//   ns per iteration at the largest N, on each side.
// - switch: a kernel that picks one of 8 cases, then a SWITCH whose cases are one small kernel
//   each; ns per launch (the launch calls alone, and to the end of the work).
// Every result is checked (counters end at 0, no loop reaches its bound, each case hit as often as
// chosen). On a machine without a GPU it runs on the host device, reduced, without the C++ program.
//   node bench/conditional.mjs [--bursts B] [--iterations 1,10,100,1000,10000]
// JSON to $OUT/conditional-*.json (or bench/results/).
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { baseline, median, report, rxcudaUnderTest } from './support.mjs';

const { Device, LaunchConfig } = await rxcudaUnderTest();

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const device = Device.default();
const cuda = device.kind === 'cuda';
const BURSTS = Number(arg('bursts', cuda ? 10 : 2));
const ITERATIONS = arg('iterations', cuda ? '1,10,100,1000,10000' : '1,10,100').split(',').map(Number);
// Launches per burst: enough that a burst takes about 10^4 iterations, at most 64.
const burstSize = (n) => Math.max(1, Math.min(64, Math.round(10_000 / n)));
const HOST_ITERATIONS = cuda ? 1000 : 50;
const HOST_ROUNDS = cuda ? 5 : 2;
const SPIN = cuda ? 200_000 : 1000; // µs: a burst of 10^4 iterations fits
const CASES = 8;
for (const [name, values] of [['bursts', [BURSTS]], ['iterations', ITERATIONS]])
  for (const v of values) if (!Number.isInteger(v) || v < 1) throw new RangeError(`Expected \`--${name}\` to be positive integers, got ${arg(name)}`);

const stream = device.createStream({ nonBlocking: true });
const module = await device.compile(`
extern "C" __global__ void start(unsigned* counter, unsigned n) { *counter = n; }
extern "C" __global__ void body(unsigned* counter, cudaGraphConditionalHandle loop) {
  unsigned left = --*counter;
  cudaGraphSetConditional(loop, left != 0);
}
extern "C" __global__ void step(unsigned* counter, unsigned* flag) {
  unsigned left = --*counter;
  *(volatile unsigned*)flag = left != 0;
}
extern "C" __global__ void choose(cudaGraphConditionalHandle which, unsigned* state) {
  cudaGraphSetConditional(which, state[${CASES}]++ % ${CASES});
}
extern "C" __global__ void hit(unsigned* hits, unsigned k) { hits[k] += 1; }`, { name: 'bench-conditional.cu' });
const start = module.kernel('start', ['ptr<u32>', 'u32'], { cpu: (_, [c, n]) => void (c[0] = n) });
const body = module.kernel('body', ['ptr<u32>', 'condition'], {
  cpu: (_, [c, loop]) => {
    c[0] -= 1;
    loop.set(c[0] !== 0);
  },
});
const step = module.kernel('step', ['ptr<u32>', 'ptr<u32>'], {
  cpu: (_, [c, flag]) => {
    c[0] -= 1;
    flag[0] = c[0] !== 0 ? 1 : 0;
  },
});
const choose = module.kernel('choose', ['condition', 'ptr<u32>'], { cpu: (_, [which, state]) => which.set(state[CASES]++ % CASES) });
const hit = module.kernel('hit', ['ptr<u32>', 'u32'], { cpu: (_, [hits, k]) => void (hits[k] += 1) });
const one = new LaunchConfig({ grid: 1, block: 1 });

/** The words of `memory`, copied to `host` (pinned, of the same length). */
async function readBack(memory, host) {
  stream.copy(host, memory);
  await stream.synchronized();
  return Array.from(host.data);
}

// rxcuda's built-in loop kernels (not its API): the C++ program's bounded loop uses them, with a
// counter slot of their module that no executable here holds (they are taken from 0 up).
async function builtinLoopKernels() {
  const other = process.env.RXCUDA_BENCH_DIST;
  let index = import.meta.resolve('rxcuda');
  if (other) {
    const folder = isAbsolute(other) ? other : resolve(import.meta.dirname, other);
    const manifest = join(folder, 'package.json');
    index = pathToFileURL(existsSync(manifest) ? join(folder, JSON.parse(readFileSync(manifest, 'utf8')).exports['.'].default) : join(folder, 'src/index.js')).href;
  }
  const { conditionKernelsOf, LOOP_SLOTS } = await import(new URL('./core/graphs/condition-kernels.js', index).href);
  const kernels = conditionKernelsOf(device.engine) ?? conditionKernelsOf(device); // keyed by the device's engine, or by the device in builds before 2026-12
  if (!kernels) throw new Error('rxcuda\'s built-in condition kernels are not loaded on this device');
  return { guard: kernels.loopGuard.handle, reset: kernels.loopReset.handle, slot: LOOP_SLOTS - 2 }; // and LOOP_SLOTS - 1 for its launch count
}

/** ns per launch of `exec` in each burst: the launch calls alone (`host`) and to the end of their work (`wall`). */
async function rxcudaBursts(exec, bursts, size) {
  exec.launch(stream); // the first launch uploads the executable
  await stream.synchronized({ spin: SPIN });
  const host = [];
  const wall = [];
  for (let b = 0; b < bursts; b++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < size; i++) exec.launch(stream);
    const t1 = process.hrtime.bigint();
    await stream.synchronized({ spin: SPIN });
    const t2 = process.hrtime.bigint();
    host.push(Number(t1 - t0) / size);
    wall.push(Number(t2 - t0) / size);
  }
  return { host, wall };
}

// --- while: rxcuda's captured loop against the C++ program's, bounded and not.
const counter = stream.alloc('u32', 1);
const counterHost = device.allocHost('u32', 1);
const whileRows = [];
let builtins;
const perIteration = {}; // the bounded loops' ns per iteration at the largest N, per side
for (const n of ITERATIONS) {
  const size = burstSize(n);
  for (const bounded of [true, false]) {
    const graph = await stream.capture((s) => {
      s.launch(start, one, [counter, n]);
      const more = s.condition({ initial: 1 });
      s.whileLoop(more, () => s.launch(body, one, [counter, more]), bounded ? { maxIterations: n } : {});
    });
    await graph.ready();
    const exec = graph.instantiate();
    const ours = await rxcudaBursts(exec, BURSTS, size);
    const [left] = await readBack(counter, counterHost);
    if (left !== 0) throw new Error(`rxcuda's loop of ${n} iterations left its counter at ${left}`);
    exec.close();
    graph.close();
    const row = { loop: bounded ? 'bounded' : 'plain', iterations: n, launches: size, rxcuda_ns_launch: median(ours.wall), rxcuda_host_ns_launch: median(ours.host) };
    if (cuda) {
      builtins ??= await builtinLoopKernels();
      const options = { iterations: n, bursts: BURSTS, burstSize: size, ...(bounded ? { ...builtins, maxIterations: n } : {}) };
      const native = baseline.whileBursts(start.handle, body.handle, stream.handle, options);
      if (native.counter !== 0 || native.overruns !== 0) throw new Error(`The C++ loop of ${n} iterations left its counter at ${native.counter}, ${native.overruns} overruns`);
      Object.assign(row, { native_ns_launch: median(native.wall), native_host_ns_launch: median(native.host), ratio: median(ours.wall) / median(native.wall) });
    }
    row.rxcuda_ns_iteration = row.rxcuda_ns_launch / n;
    if (cuda) row.native_ns_iteration = row.native_ns_launch / n;
    whileRows.push(row);
  }
}
const largest = Math.max(...ITERATIONS);
const boundedAtLargest = whileRows.find((r) => r.loop === 'bounded' && r.iterations === largest);
perIteration.rxcuda = boundedAtLargest.rxcuda_ns_iteration;
perIteration.native = boundedAtLargest.native_ns_iteration;
report('conditional-while', 'ns per launch and per iteration of a WHILE around one small kernel (launches of N iterations, in bursts, to the end of their work); ratio: rxcuda ÷ C++', whileRows);

// --- host loop: the same loop driven from the host, one wait per iteration.
const flag = device.allocHost('u32', 1);
async function jsHostLoop(wait) {
  const times = [];
  for (let r = 0; r < HOST_ROUNDS; r++) {
    stream.launch(start, one, [counter, HOST_ITERATIONS]);
    await stream.synchronized();
    let n = 0;
    const t0 = process.hrtime.bigint();
    do {
      stream.launch(step, one, [counter, flag]);
      await stream.synchronized(wait);
      n++;
    } while (flag.data[0] !== 0 && n <= HOST_ITERATIONS);
    times.push(Number(process.hrtime.bigint() - t0) / n);
    if (n !== HOST_ITERATIONS) throw new Error(`The host-driven loop ran ${n} iterations, not ${HOST_ITERATIONS}`);
  }
  return median(times);
}
const hostRows = [];
for (const [road, wait] of [[`rxcuda synchronized({ spin: ${SPIN} })`, { spin: SPIN }], ['rxcuda synchronized() (host callbacks)', {}]]) {
  const ns = await jsHostLoop(wait);
  hostRows.push({ road, ns_iteration: ns, 'ratio to WHILE': ns / perIteration.rxcuda });
}
if (cuda) {
  for (const [road, wait] of [['C++ cuStreamSynchronize', 0], ['C++ cuStreamQuery spin', 1]]) {
    const native = baseline.hostLoop(start.handle, step.handle, stream.handle, { iterations: HOST_ITERATIONS, rounds: HOST_ROUNDS, wait });
    if (native.iterations.some((n) => n !== HOST_ITERATIONS)) throw new Error(`The C++ host-driven loop ran ${native.iterations.join(', ')} iterations, not ${HOST_ITERATIONS}`);
    const ns = median(native.perIteration);
    hostRows.push({ road, ns_iteration: ns, 'ratio to WHILE': ns / perIteration.native });
  }
}
report('conditional-host-loop', `ns per iteration of the loop driven from the host (${HOST_ITERATIONS} iterations), and its ratio to the bounded WHILE's ns per iteration at N = ${largest} on the same side`, hostRows);

// --- switch over 8 cases.
const state = stream.alloc('u32', CASES + 1);
const stateHost = device.allocHost('u32', CASES + 1);
stream.fill(state, 0);
const switchGraph = await stream.capture((s) => {
  const which = s.condition();
  s.launch(choose, one, [which, state]);
  s.switchOn(which, Array.from({ length: CASES }, (_, k) => () => s.launch(hit, one, [state, k])));
});
await switchGraph.ready();
const switchExec = switchGraph.instantiate();
const SWITCH_BURST = 64;
const ours = await rxcudaBursts(switchExec, BURSTS, SWITCH_BURST);
const hits = await readBack(state, stateHost);
const launched = 1 + BURSTS * SWITCH_BURST;
if (hits[CASES] !== launched || hits.slice(0, CASES).reduce((a, b) => a + b, 0) !== launched)
  throw new Error(`rxcuda's SWITCH hit its cases ${hits.slice(0, CASES).join(', ')} in ${launched} launches (chosen ${hits[CASES]} times)`);
switchExec.close();
switchGraph.close();
const switchRows = [{ road: 'rxcuda GraphExec.launch', ns_launch: median(ours.wall), host_ns_launch: median(ours.host) }];
if (cuda) {
  const native = baseline.switchBursts(choose.handle, hit.handle, stream.handle, { bursts: BURSTS, burstSize: SWITCH_BURST, cases: CASES });
  if (native.hits.reduce((a, b) => a + b, 0) !== launched) throw new Error(`The C++ SWITCH hit its cases ${Array.from(native.hits).join(', ')} in ${launched} launches`);
  switchRows.push({ road: 'C++ cuGraphLaunch', ns_launch: median(native.wall), host_ns_launch: median(native.host) });
  switchRows[0].ratio = switchRows[0].ns_launch / switchRows[1].ns_launch;
  switchRows[0].host_ratio = switchRows[0].host_ns_launch / switchRows[1].host_ns_launch;
}
report('conditional-switch', `ns per launch of a kernel choosing one of ${CASES} cases and a SWITCH over them (one small kernel each), in bursts of ${SWITCH_BURST}; ratio: rxcuda ÷ C++`, switchRows);

for (const memory of [state, stateHost, counter, counterHost, flag]) memory.close();
stream.close();
