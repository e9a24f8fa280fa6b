// bench/completion: the completion queue and held host steps against native baselines, in one process.
// (a) device work done → JavaScript callback running, against cuLaunchHostFunc waking a C++
//     thread through a condition variable (both: an empty kernel, then the notification). Beside
//     it: the Node-API floor (the same enqueue from C++, then a threadsafe function or a libuv
//     async handle calling JavaScript), and the low-latency mode against a C++ thread that
//     spin-polls the stream's write itself.
// (b) a held host step: from the moment the step settles to the write of the kernel enqueued
//     behind it seen on the host by an observer thread. The kernel waits in rxcuda's queue and is
//     launched when the step settles. Against the same path made natively: the notification wakes
//     the main thread through a threadsafe function, and the JavaScript callback launches the
//     kernel from C++ at once. Beside it, the plain native gate (cuStreamWaitValue32 released by a
//     host store), which pays the launch in advance and which rxcuda no longer uses.
// (c) held-step throughput: N streams each running rounds of (empty kernel, host step) with the
//     next round's kernel behind the step, against the same path made natively (the callback
//     launches the next round's kernel and notification from C++).
// The latency cases alternate with their baselines in 20 short rounds, so drift weighs on both.
import { baseline, median, percentile, report, rxcudaUnderTest } from './support.mjs';

// This checkout's rxcuda, or with RXCUDA_BENCH_DIST=<folder> another build's (see support.mjs).
const { Device } = await rxcudaUnderTest();
const { expectCompletion, notifyAlone } = await rxcudaUnderTest(undefined, './internal');

const COUNT = 2000;
const ROUNDS = 20;
const device = Device.default();
const stream = device.createStream({ nonBlocking: true });
const module = await device.compile(`
extern "C" __global__ void empty() {}
extern "C" __global__ void store(unsigned* p, unsigned value) { *(volatile unsigned*)p = value; }
`, { name: 'bench-completion.cu' });
const empty = module.kernel('empty', []);
const store = module.kernel('store', ['ptr', 'u32']);
const one = { grid: 1, block: 1 };
const now = () => process.hrtime.bigint();
const micros = (from, to) => Number(to - from) / 1000;

function summary(name, ours, theirs, target) {
  return {
    case: name,
    rxcuda_median_us: median(ours),
    native_median_us: median(theirs),
    ratio: median(ours) / median(theirs),
    rxcuda_p99_us: percentile(ours, 99),
    native_p99_us: percentile(theirs, 99),
    target,
  };
}

// (a) ------------------------------------------------------------------------------------------

/** Round trips of an empty kernel and a wait: `wait()` resolves to when JavaScript learned of it. */
async function roundTrips(count, wait, enqueued = []) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const start = now();
    stream.launch(empty, one, []);
    const waiting = wait();
    enqueued.push(micros(start, now()));
    out.push(micros(start, await waiting));
  }
  return out;
}

const byCallback = () => new Promise((resolve) => stream.onDone(() => resolve(now())));
const byNotifyAlone = () => new Promise((resolve) => notifyAlone(stream, expectCompletion(() => resolve(now()))));
const bySpinning = () => stream.synchronized({ spin: 200 }).then(now);

let woken;
const waker = baseline.createWaker(() => woken(now()));
const uvWaker = baseline.createWaker(() => woken(now()), 'uvAsync');
async function floorTrips(count, by = waker) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const start = now();
    const done = new Promise((r) => (woken = r));
    baseline.launchAndWake(empty.handle, stream.handle, by);
    out.push(micros(start, await done));
  }
  return out;
}

await roundTrips(200, byCallback);
baseline.hostCallbackRoundTrips(empty.handle, stream.handle, 200);
await floorTrips(200);
await floorTrips(200, uvWaker);
const [oursA, enqueueA, theirsA, nodeApiFloor, uvFloor] = [[], [], [], [], []];
for (let round = 0; round < ROUNDS; round++) {
  oursA.push(...(await roundTrips(COUNT / ROUNDS, byCallback, enqueueA)));
  theirsA.push(...baseline.hostCallbackRoundTrips(empty.handle, stream.handle, COUNT / ROUNDS, 'hostFunction'));
  nodeApiFloor.push(...(await floorTrips(COUNT / ROUNDS)));
  uvFloor.push(...(await floorTrips(COUNT / ROUNDS, uvWaker)));
}
baseline.closeWaker(uvWaker);
await roundTrips(200, byNotifyAlone);
const oursNotifyAlone = await roundTrips(COUNT, byNotifyAlone);

await roundTrips(200, bySpinning);
const word = device.allocHost('u32', 1);
baseline.spinRoundTrips(empty.handle, stream.handle, word.ptr, 200);
const [nativeSpin, oursSpin, spinEnqueue] = [[], [], []];
let spinCpuUs = 0;
let spinWallUs = 0;
for (let round = 0; round < ROUNDS; round++) {
  nativeSpin.push(...baseline.spinRoundTrips(empty.handle, stream.handle, word.ptr, COUNT / ROUNDS));
  const cpuBefore = process.cpuUsage();
  const wallBefore = now();
  oursSpin.push(...(await roundTrips(COUNT / ROUNDS, bySpinning, spinEnqueue)));
  const cpu = process.cpuUsage(cpuBefore);
  spinCpuUs += cpu.user + cpu.system;
  spinWallUs += micros(wallBefore, now());
}
const spinCpu = { cpu_us_per_wait: spinCpuUs / COUNT, wall_us_per_wait: spinWallUs / COUNT };

// (b) ------------------------------------------------------------------------------------------

/**
 * Times, for `count` steps, from the moment a step settles to the observer thread seeing the
 * write of the kernel behind it. `enqueue(i, step)` enqueues the step and the store of i behind it.
 */
async function settleToSeen(count, enqueue) {
  const flag = device.allocHost('u32', 1);
  const starts = new Float64Array(count);
  const observer = baseline.startObserver(flag.ptr, count);
  for (let i = 1; i <= count; i++) {
    await new Promise((resolve) => {
      enqueue(flag, i, () => {
        starts[i - 1] = Number(now());
        setImmediate(resolve);
      });
    });
  }
  await stream.synchronized();
  const seen = baseline.finishObserver(observer);
  flag.close();
  return Array.from(seen, (at, i) => (at - starts[i]) / 1000);
}

/** rxcuda: the store waits in the stream's queue behind the step and goes when the step returns. */
const rxcudaStep = (flag, i, step) => {
  stream.launch(empty, one, []);
  stream.hostLaunch(step);
  stream.launch(store, one, [flag, i]);
};
/** The same path natively: the wake-up's callback runs the step, then launches the store from C++. */
let stepWoken;
const stepWaker = baseline.createWaker(() => stepWoken());
const nativeStep = (flag, i, step) => {
  stepWoken = () => {
    step();
    baseline.launchStore(store.handle, stream.handle, flag.ptr, i);
  };
  baseline.launchAndWake(empty.handle, stream.handle, stepWaker);
};
const gate = device.allocHost('u32', 1);
const gateFlag = device.allocHost('u32', 1);
const plainGate = (count) => baseline.gateRoundTrips(store.handle, stream.handle, gate.ptr, gateFlag.ptr, count, 'none', -1);

await settleToSeen(100, rxcudaStep);
await settleToSeen(100, nativeStep);
plainGate(50);
const [oursB, theirsB, gateB] = [[], [], []];
for (let round = 0; round < ROUNDS; round++) {
  oursB.push(...(await settleToSeen(COUNT / ROUNDS, rxcudaStep)));
  theirsB.push(...(await settleToSeen(COUNT / ROUNDS, nativeStep)));
  gateB.push(...plainGate(COUNT / ROUNDS));
}
baseline.closeWaker(stepWaker);

// (c) ------------------------------------------------------------------------------------------

/** Steps per second over `streams` streams running `rounds` rounds each, all enqueued at once. */
async function rxcudaThroughput(streams, rounds) {
  let ran = 0;
  const step = () => void ran++;
  const start = now();
  for (const s of streams)
    for (let r = 0; r < rounds; r++) {
      s.launch(empty, one, []);
      s.hostLaunch(step);
    }
  await Promise.all(streams.map((s) => s.synchronized()));
  if (ran !== streams.length * rounds) throw new Error(`ran ${ran} steps of ${streams.length * rounds}`);
  return ran / (micros(start, now()) / 1e6);
}

/** The same path natively: each wake-up runs the step, then launches the next round from C++. */
async function nativeThroughput(streams, rounds) {
  let ran = 0;
  const start = now();
  await Promise.all(
    streams.map(
      (s) =>
        new Promise((resolve) => {
          let round = 0;
          const wakerOfStream = baseline.createWaker(() => {
            ran++;
            if (++round < rounds) baseline.launchAndWake(empty.handle, s.handle, wakerOfStream);
            else resolve(baseline.closeWaker(wakerOfStream));
          });
          baseline.launchAndWake(empty.handle, s.handle, wakerOfStream);
        }),
    ),
  );
  if (ran !== streams.length * rounds) throw new Error(`ran ${ran} steps of ${streams.length * rounds}`);
  return ran / (micros(start, now()) / 1e6);
}

const throughput = [];
for (const [count, rounds] of [[1, 4000], [16, 500], [256, 40], [1000, 12]]) {
  const streams = Array.from({ length: count }, () => device.createStream({ nonBlocking: true }));
  await rxcudaThroughput(streams, 2);
  await nativeThroughput(streams, 2);
  const ours = [];
  const theirs = [];
  for (let round = 0; round < 3; round++) {
    ours.push(await rxcudaThroughput(streams, rounds));
    theirs.push(await nativeThroughput(streams, rounds));
  }
  streams.forEach((s) => s.close());
  throughput.push({
    case: `held-step throughput, ${count} stream(s) × ${rounds} steps (steps/s)`,
    rxcuda_steps_per_s: median(ours),
    native_steps_per_s: median(theirs),
    ratio: median(ours) / median(theirs),
    target: 'to compare',
  });
}
baseline.closeWaker(waker);

report('completion', `completion queue and held steps on ${device.name}, ${COUNT} round trips each`, [
  { ...summary('device done → JS callback', oursA, theirsA, '≤ 1.1'), enqueue_median_us: median(enqueueA) },
  summary('… the native notification alone (no checks)', oursNotifyAlone, theirsA, 'to compare'),
  summary('Node-API floor: C++ enqueues, a threadsafe function calls JS', nodeApiFloor, theirsA, 'to compare'),
  summary('… a libuv async handle in place of the threadsafe function', uvFloor, theirsA, 'to compare'),
  { ...summary('… low-latency mode (spin ≤ 200 µs)', oursSpin, theirsA, '≤ 12 µs median'), enqueue_median_us: median(spinEnqueue), ...spinCpu },
  summary('native: kernel, write-value, this thread spin-polls (vs. the callback)', nativeSpin, theirsA, 'to compare'),
  summary('held step settles → next kernel seen (vs. the same path made natively)', oursB, theirsB, '≤ 1.1'),
  summary('… against the plain native gate (launch paid in advance)', oursB, gateB, 'to compare'),
  ...throughput,
]);
stream.close();
