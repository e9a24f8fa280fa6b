// bench/completion: the completion road against native baselines, in one process.
// (a) device work done → JavaScript callback running, against cuLaunchHostFunc waking a C++
//     thread through a condition variable (both: an empty kernel, then the notification). Beside
//     it: the Node-API floor (the same enqueue from C++, then a threadsafe function calling
//     JavaScript: what any addon pays to reach the main thread), the split of the enqueue, and the
//     low-latency mode against a C++ thread that spin-polls the stream's write itself.
// (b) a held host step: from the moment the step settles to the next kernel's write seen on the
//     host (by an observer thread, and by the main thread), against a native gate
//     (cuStreamWaitValue32 on pinned memory, released by a host store); beside it, the same
//     gate with a held step's notification in front of the wait, made in C++ in several ways,
//     and stored 100 µs after the enqueue or a set time after the notification ran.
// The main cases alternate with their baselines in 20 short rounds, so drift weighs on both.
import { Device, LaunchConfig, Stream } from '../dist/src/index.js';
import { expectCompletion } from '../dist/src/core/completions.js';
import { NOTIFY_BY_HOST_FUNCTION } from '../dist/src/core/native.js';
import { baseline, median, percentile, report } from './support.mjs';

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
const micros = (from, to) => Number(to - from) / 1000;

const now = () => process.hrtime.bigint();

/**
 * Round trips of an empty kernel and a wait for it: `wait()` resolves to the moment JavaScript
 * learned that the kernel had finished.
 */
async function roundTrips(count, wait, enqueued = [], launched = []) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const start = now();
    stream.launch(empty, one, []);
    launched.push(micros(start, now()));
    const waiting = wait();
    enqueued.push(micros(start, now()));
    out.push(micros(start, await waiting));
  }
  return out;
}

/** The default road: a notification through cuStreamAddCallback. */
const byCallback = () => new Promise((resolve) => stream.onDone(() => resolve(now())));
/** The notification alone, without onDone's checks and bookkeeping. */
const byNotifyAlone = () => new Promise((resolve) => stream.native.notify(expectCompletion(() => resolve(now()))));
/** The same notification enqueued by cuLaunchHostFunc instead. */
const byHostFunction = () => new Promise((resolve) => stream.native.notify(expectCompletion(() => resolve(now())), NOTIFY_BY_HOST_FUNCTION));
/** Low-latency mode: a native thread watches for the stream's write for up to 200 µs. */
const bySpinning = () => stream.synchronized({ spin: 200 }).then(now);

/**
 * Held steps, timed from the moment a step settles to the write of the kernel enqueued behind it
 * becoming visible on the host: `observed`, as a second (native) thread that watches the word sees
 * it, and `main`, as the main thread sees it once it is back from the step and looks. `enqueueStep`
 * enqueues the step; `settleAfter` µs of busy waiting in the step first lets the stream reach its
 * wait, as the native gate's measurement does.
 */
async function heldStepRoundTrips(count, { on = stream, enqueueStep = (step) => on.hostLaunch(step), settleAfter = 0 } = {}) {
  const flag = device.allocHost('u32', 1);
  flag.data[0] = 0;
  const main = [];
  const starts = new Float64Array(count);
  const observer = baseline.startObserver(flag.ptr, count);
  for (let i = 1; i <= count; i++) {
    await new Promise((resolve) => {
      let start;
      enqueueStep(() => {
        const engaged = process.hrtime.bigint() + BigInt(settleAfter * 1000);
        while (process.hrtime.bigint() < engaged) {}
        start = process.hrtime.bigint();
        starts[i - 1] = Number(start);
        // The gate is written as the step returns; watch for the kernel behind it right after.
        queueMicrotask(() => {
          while (flag.data[0] !== i) {}
          main.push(micros(start, process.hrtime.bigint()));
          resolve();
        });
      });
      on.launch(store, one, [flag, i]);
    });
  }
  await on.synchronized();
  const seen = baseline.finishObserver(observer);
  const observed = Array.from(seen, (at, i) => (at - starts[i]) / 1000);
  return { main, observed };
}

/**
 * A held step made by hand with its notification on the stream itself (through cuLaunchHostFunc),
 * in front of the wait: what rxcuda's held steps avoid by notifying on a second stream.
 */
function stepByHostFunction() {
  const gate = device.allocHost('u32', 1);
  gate.data[0] = 0;
  let value = 0;
  return (step) => {
    const mine = ++value;
    stream.native.notify(expectCompletion(() => ((step(), (gate.data[0] = mine)))), NOTIFY_BY_HOST_FUNCTION);
    stream.native.waitValue(gate.ptr, mine);
  };
}

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

await roundTrips(200, byCallback); // warm-up
baseline.hostCallbackRoundTrips(empty.handle, stream.handle, 200);
const oursA = [];
const theirsA = [];
// Within each round trip: the launch, and the launch with the notification's enqueue.
const launchA = [];
const enqueueA = [];
const nativeEnqueueA = [];
const nativeLaunchA = [];
// The Node-API floor: the launch and cuLaunchHostFunc from C++, a threadsafe function calling JS.
// Beside it, the same with a bare libuv async handle in place of the threadsafe function.
let woken;
const waker = baseline.createWaker(() => woken(now()));
const uvWaker = baseline.createWaker(() => woken(now()), 'uvAsync');
const floorTrips = async (count, by = waker) => {
  const out = [];
  for (let i = 0; i < count; i++) {
    const start = now();
    const done = new Promise((r) => (woken = r));
    baseline.launchAndWake(empty.handle, stream.handle, by);
    out.push(micros(start, await done));
  }
  return out;
};

const nodeApiFloor = [];
const uvFloor = [];
await floorTrips(200);
await floorTrips(200, uvWaker);
// Short alternating rounds, so that drift in the machine's state weighs on all three alike.
for (let round = 0; round < ROUNDS; round++) {
  oursA.push(...(await roundTrips(COUNT / ROUNDS, byCallback, enqueueA, launchA)));
  const enqueued = new Float64Array(COUNT / ROUNDS);
  const launched = new Float64Array(COUNT / ROUNDS);
  theirsA.push(...baseline.hostCallbackRoundTrips(empty.handle, stream.handle, COUNT / ROUNDS, 'hostFunction', enqueued, launched));
  nativeEnqueueA.push(...enqueued);
  nativeLaunchA.push(...launched);
  nodeApiFloor.push(...(await floorTrips(COUNT / ROUNDS)));
  uvFloor.push(...(await floorTrips(COUNT / ROUNDS, uvWaker)));
}
baseline.closeWaker(waker);
baseline.closeWaker(uvWaker);

// Where the notification's enqueue goes: each part timed apart.
const config = new LaunchConfig(one);
const parts = { launchPlain: [], launchConfig: [], capturing: [], expect: [], notify: [], noop: [] };
for (let i = 0; i < COUNT; i++) {
  const t0 = now();
  stream.launch(empty, i % 2 ? config : one, []);
  const t1 = now();
  stream.native.capturing();
  const t2 = now();
  let resolve;
  const done = new Promise((r) => (resolve = r));
  const id = expectCompletion(() => resolve());
  const t3 = now();
  stream.native.notify(id);
  const t4 = now();
  baseline.noop();
  const t5 = now();
  (i % 2 ? parts.launchConfig : parts.launchPlain).push(micros(t0, t1));
  parts.capturing.push(micros(t1, t2));
  parts.expect.push(micros(t2, t3));
  parts.notify.push(micros(t3, t4));
  parts.noop.push(micros(t4, t5));
  await done;
}

baseline.hostCallbackRoundTrips(empty.handle, stream.handle, 200, 'streamCallback');
const nativeByCallback = baseline.hostCallbackRoundTrips(empty.handle, stream.handle, COUNT, 'streamCallback');

await roundTrips(200, byNotifyAlone);
const notifyAloneEnqueue = [];
const oursNotifyAlone = await roundTrips(COUNT, byNotifyAlone, notifyAloneEnqueue);

await roundTrips(200, byHostFunction);
const oursHostFunction = [];
for (let round = 0; round < ROUNDS; round++) oursHostFunction.push(...(await roundTrips(COUNT / ROUNDS, byHostFunction)));

await roundTrips(200, bySpinning);
const word = device.allocHost('u32', 1);
baseline.spinRoundTrips(empty.handle, stream.handle, word.ptr, 200);
const nativeSpin = [];
const oursSpin = [];
const spinEnqueue = [];
// And with the watcher waking the main thread for a write it saw, as well.
const oursSpinWoken = [];
// CPU time of the whole process per wait, against wall time per wait: the watcher's busy core.
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
  Stream.watchQuietly = false;
  oursSpinWoken.push(...(await roundTrips(COUNT / ROUNDS, bySpinning)));
  Stream.watchQuietly = true;
}
const spinCpu = { cpu_us_per_wait: spinCpuUs / COUNT, wall_us_per_wait: spinWallUs / COUNT };

const gate = device.allocHost('u32', 1);
const flag = device.allocHost('u32', 1);
await heldStepRoundTrips(100); // warm-up
/**
 * The Node-API floor of a held step: the step enqueued from C++ as rxcuda enqueues it, its
 * notification waking the main thread through a threadsafe function, whose JavaScript callback
 * opens the gate at once (no rxcuda code on the way); timed as heldStepRoundTrips times rxcuda's.
 */
let stepWoken;
const stepWaker = baseline.createWaker(() => stepWoken());
async function heldStepFloor(count) {
  const flag = device.allocHost('u32', 1);
  const gate = device.allocHost('u32', 1);
  flag.data[0] = 0;
  gate.data[0] = 0;
  const starts = new Float64Array(count);
  const observer = baseline.startObserver(flag.ptr, count);
  for (let i = 1; i <= count; i++) {
    await new Promise((resolve) => {
      stepWoken = () => {
        starts[i - 1] = Number(process.hrtime.bigint());
        gate.data[0] = i;
        queueMicrotask(() => {
          while (flag.data[0] !== i) {}
          resolve();
        });
      };
      baseline.holdAndWake(store.handle, stream.handle, gate.ptr, flag.ptr, i, stepWaker);
    });
  }
  await stream.synchronized();
  const seen = baseline.finishObserver(observer);
  return Array.from(seen, (at, i) => (at - starts[i]) / 1000);
}

const gateTrips = (count, notification = 'none', after = -1) =>
  baseline.gateRoundTrips(store.handle, stream.handle, gate.ptr, flag.ptr, count, notification, after);
const oursB = [];
const oursBMain = [];
const theirsB = [];
// A native held step made as rxcuda makes one: the gate stored 15 µs after the notification
// (cuStreamAddCallback on a second stream, behind an event) ran, about when a step's JS runs.
const nativeHeldStep = [];
const heldFloor = [];
await heldStepFloor(100);
for (let round = 0; round < ROUNDS; round++) {
  const { main, observed } = await heldStepRoundTrips(COUNT / ROUNDS);
  oursB.push(...observed);
  oursBMain.push(...main);
  theirsB.push(...gateTrips(COUNT / ROUNDS));
  nativeHeldStep.push(...gateTrips(COUNT / ROUNDS, 'sideCallback', 15));
  heldFloor.push(...(await heldStepFloor(COUNT / ROUNDS)));
}
baseline.closeWaker(stepWaker);

const settled = await heldStepRoundTrips(COUNT / 2, { settleAfter: 100 });
// Held steps on a new stream (with a new gate word) each round.
const onNewStreams = [];
for (let round = 0; round < ROUNDS; round++) {
  const fresh = device.createStream({ nonBlocking: true });
  onNewStreams.push(...(await heldStepRoundTrips(COUNT / ROUNDS, { on: fresh })).observed);
  fresh.close();
}
// The native gate again, with a notification in front of its wait as a held step has (a host
// function that only notes that it ran): on the same stream; on a second stream reached through
// an event, or through a word the stream writes; the second stream with the event alone; and the
// store made a set time after the host function ran (15 µs is about when a held step's JavaScript
// runs) rather than 100 µs after the enqueue. In alternating rounds, beside the plain gate.
const variants = {
  'host function on the same stream': ['sameStream'],
  'host function on a second stream (event)': ['sideStream'],
  '… reached through a written word instead': ['sideWord'],
  '… the event alone, no host function': ['sideEventOnly'],
  'host function on a second stream, store 15 µs after it ran': ['sideStream', 15],
  '… 100 µs after it ran': ['sideStream', 100],
  '… cuStreamAddCallback, 15 µs after it ran': ['sideCallback', 15],
  'no host function: a thread waits for an event, store 15 µs after': ['eventThread', 15],
  plain: ['none'],
};
const gates = Object.fromEntries(Object.keys(variants).map((v) => [v, []]));
for (const v of Object.values(variants)) gateTrips(50, ...v);
for (let round = 0; round < ROUNDS; round++)
  for (const [name, v] of Object.entries(variants)) gates[name].push(...gateTrips(COUNT / ROUNDS / 2, ...v));
const byHostFunctionStep = await heldStepRoundTrips(COUNT / 2, { enqueueStep: stepByHostFunction() });

report('completion', `completion road on ${device.name}, ${COUNT} round trips each`, [
  { ...summary('device done → JS callback', oursA, theirsA, '≤ 1.1'), launch_median_us: median(launchA), enqueue_median_us: median(enqueueA), native_launch_median_us: median(nativeLaunchA), native_enqueue_median_us: median(nativeEnqueueA) },
  { ...summary('… the native notification alone (no checks)', oursNotifyAlone, theirsA, 'to compare'), enqueue_median_us: median(notifyAloneEnqueue) },
  summary('… notified by cuLaunchHostFunc instead', oursHostFunction, theirsA, 'to compare'),
  summary('native cuStreamAddCallback (vs. cuLaunchHostFunc)', nativeByCallback, theirsA, 'to compare'),
  summary('Node-API floor: C++ enqueues, a threadsafe function calls JS', nodeApiFloor, theirsA, 'to compare'),
  summary('… a libuv async handle in place of the threadsafe function', uvFloor, theirsA, 'to compare'),
  { ...summary('… low-latency mode (spin ≤ 200 µs)', oursSpin, theirsA, '≤ 12 µs median'), enqueue_median_us: median(spinEnqueue), ...spinCpu },
  summary('… the watcher waking the main thread for a write it saw', oursSpinWoken, theirsA, 'to compare'),
  summary('native: kernel, write-value, this thread spin-polls (vs. the callback)', nativeSpin, theirsA, 'to compare'),
  summary('held step settles → next kernel seen', oursB, theirsB, '≤ 1.2'),
  summary('… seen by the main thread, back from the step', oursBMain, theirsB, 'to compare'),
  summary('… against a native held step (store 15 µs after its callback ran)', oursB, nativeHeldStep, 'to compare'),
  summary('Node-API floor of a held step: C++ enqueues, a threadsafe function opens the gate', heldFloor, theirsB, 'to compare'),
  summary('… the step settling 100 µs after it began', settled.observed, theirsB, 'to compare'),
  summary('… on a new stream each round', onNewStreams, theirsB, 'to compare'),
  summary('… notified on the stream itself, in front of the wait', byHostFunctionStep.observed, theirsB, 'to compare'),
  ...Object.keys(variants).filter((v) => v !== 'plain').map((v) => summary(`native gate, ${v} (vs. the plain gate alongside)`, gates[v], gates.plain, 'to compare')),
]);
console.log('enqueue parts, median µs:', Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, Number(median(v).toFixed(3))])));
stream.close();
