// bench/completion: the completion road against native baselines, in one process.
// (a) device work done → JavaScript callback running, against cuLaunchHostFunc waking a C++
//     thread through a condition variable (both: an empty kernel, then the notification).
// (b) a held host step: from the moment the step settles to the next kernel's write seen on the
//     host, against a native gate (cuStreamWaitValue32 on pinned memory, released by a host store).
import { Device } from '../dist/src/index.js';
import { expectCompletion } from '../dist/src/core/completions.js';
import { baseline, median, percentile, report } from './support.mjs';

const COUNT = 2000;
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
async function roundTrips(count, wait) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const start = now();
    stream.launch(empty, one, []);
    out.push(micros(start, await wait()));
  }
  return out;
}

/** The default road: a notification through cuStreamAddCallback. */
const byCallback = () => new Promise((resolve) => stream.onDone(() => resolve(now())));
/** The same notification enqueued by cuLaunchHostFunc instead. */
const byHostFunction = () => new Promise((resolve) => stream.native.notify(expectCompletion(() => resolve(now())), true));
/** Low-latency mode: a native thread watches for the stream's write for up to 200 µs. */
const bySpinning = () => stream.synchronized({ spin: 200 }).then(now);

/**
 * Held steps, timed from the moment a step settles to the host seeing the write of the kernel
 * enqueued behind it. `enqueueStep(step)` enqueues the step; `settleAfter` µs of busy waiting in
 * the step first lets the stream reach its wait, as the native gate's measurement does.
 */
async function heldStepRoundTrips(count, { enqueueStep = (step) => stream.hostLaunch(step), settleAfter = 0 } = {}) {
  const flag = device.allocHost('u32', 1);
  flag.data[0] = 0;
  const out = [];
  for (let i = 1; i <= count; i++) {
    await new Promise((resolve) => {
      let start;
      enqueueStep(() => {
        const engaged = process.hrtime.bigint() + BigInt(settleAfter * 1000);
        while (process.hrtime.bigint() < engaged) {}
        start = process.hrtime.bigint();
        // The gate is written as the step returns; watch for the kernel behind it right after.
        queueMicrotask(() => {
          while (flag.data[0] !== i) {}
          out.push(micros(start, process.hrtime.bigint()));
          resolve();
        });
      });
      stream.launch(store, one, [flag, i]);
    });
  }
  await stream.synchronized();
  return out;
}

/** A held step made by hand from the same parts, its notification through cuLaunchHostFunc. */
function stepByHostFunction() {
  const gate = device.allocHost('u32', 1);
  gate.data[0] = 0;
  let value = 0;
  return (step) => {
    const mine = ++value;
    stream.native.notify(expectCompletion(() => ((step(), (gate.data[0] = mine)))), true);
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
for (let round = 0; round < 4; round++) {
  oursA.push(...(await roundTrips(COUNT / 4, byCallback)));
  theirsA.push(...baseline.hostCallbackRoundTrips(empty.handle, stream.handle, COUNT / 4));
}

await roundTrips(200, byHostFunction);
const oursHostFunction = [];
for (let round = 0; round < 4; round++) oursHostFunction.push(...(await roundTrips(COUNT / 4, byHostFunction)));

await roundTrips(200, bySpinning);
const cpuBefore = process.cpuUsage();
const spinStart = process.hrtime.bigint();
const oursSpin = await roundTrips(COUNT, bySpinning);
const cpu = process.cpuUsage(cpuBefore);
const wall = micros(spinStart, process.hrtime.bigint());
// CPU time of the whole process per wait, against wall time per wait: the watcher's busy core.
const spinCpu = { cpu_us_per_wait: (cpu.user + cpu.system) / COUNT, wall_us_per_wait: wall / COUNT };

const gate = device.allocHost('u32', 1);
const flag = device.allocHost('u32', 1);
await heldStepRoundTrips(100); // warm-up
const oursB = [];
const theirsB = [];
for (let round = 0; round < 4; round++) {
  oursB.push(...(await heldStepRoundTrips(COUNT / 4)));
  theirsB.push(...baseline.gateRoundTrips(store.handle, stream.handle, gate.ptr, flag.ptr, COUNT / 4));
}

const settled = await heldStepRoundTrips(COUNT / 2, { settleAfter: 100 });
// The native gate again, now behind a host function that does nothing, as a step's notification.
baseline.gateRoundTrips(store.handle, stream.handle, gate.ptr, flag.ptr, 100, true);
const nativeAfterHostFunction = baseline.gateRoundTrips(store.handle, stream.handle, gate.ptr, flag.ptr, COUNT / 2, true);
const byHostFunctionStep = await heldStepRoundTrips(COUNT / 2, { enqueueStep: stepByHostFunction() });

report('completion', `completion road on ${device.name}, ${COUNT} round trips each`, [
  summary('device done → JS callback', oursA, theirsA, '≤ 1.1'),
  summary('… notified by cuLaunchHostFunc instead', oursHostFunction, theirsA, 'to compare'),
  { ...summary('… low-latency mode (spin ≤ 200 µs)', oursSpin, theirsA, '≤ 12 µs median'), ...spinCpu },
  summary('held step settles → next kernel seen', oursB, theirsB, '≤ 1.2'),
  summary('… the step settling 100 µs after it began', settled, theirsB, 'to compare'),
  summary('… notified by cuLaunchHostFunc instead', byHostFunctionStep, theirsB, 'to compare'),
  summary('native gate behind a host function (vs. the plain gate)', nativeAfterHostFunction, theirsB, 'to compare'),
]);
stream.close();
