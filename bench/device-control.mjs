// bench/device-control: a replayed pipeline whose values each run a loop on the device
// (loopOnDevice under replay: one conditional node of the value's executable) against the same
// pipeline deciding on the host (loopOnDevice outside replay: the flag read back before each
// iteration), by iteration count. Values/s for both, and the main thread's busy time per value
// (the event loop's active time over the run): where the loop never wakes JavaScript, it does not
// grow with the iterations, and the slope over them is the main-thread time per iteration.
// Run: node bench/device-control.mjs [--values N] [--rounds R]
import { lastValueFrom, map, pipe, range, toArray } from 'rxjs';
import { performance } from 'node:perf_hooks';
import { median, report, rxcudaUnderTest } from './support.mjs';

const { Device, download, launch, loopOnDevice, onStreams, replay, upload } = await rxcudaUnderTest();

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
};
const device = Device.default();
const gpu = device.kind === 'cuda';
const VALUES = arg('--values', gpu ? 4000 : 400);
const ROUNDS = arg('--rounds', 3);
const ITERATIONS = gpu ? [1, 10, 100] : [1, 10];
process.removeAllListeners('warning'); // the host device says once that it decides on the host

const module = await device.compile(`
extern "C" __global__ void step(unsigned* x) { if (threadIdx.x == 0) { x[0] -= 1; x[1] += 1; } }`, { name: 'bench-device-control.cu' });
const step = module.kernel('step', ['ptr<u32>'], {
  cpu: (_, [x]) => {
    x[0] = x[0] - 1;
    x[1] = x[1] + 1;
  },
});

/** One run: values/s and the main thread's busy µs per value; every result checked. */
async function run(iterations, onDevice) {
  const body = pipe(
    upload((x) => x, 'x'),
    loopOnDevice(launch(step, { grid: 1, block: 32 }, [(w) => w.buffers.x]), { while: (w) => w.buffers.x, maxIterations: iterations + 1 }),
    download((w) => w.buffers.x, 'x'),
  );
  const before = performance.eventLoopUtilization();
  const start = performance.now();
  const counts = await lastValueFrom(
    range(0, VALUES).pipe(
      map(() => Uint32Array.of(iterations, 0)),
      onStreams(device, { lanes: 4 }),
      onDevice ? replay(body) : body,
      map((w) => w.results.x[1]),
      toArray(),
    ),
  );
  const seconds = (performance.now() - start) / 1000;
  const busy = performance.eventLoopUtilization(before).active; // ms
  if (counts.length !== VALUES || counts.some((c) => c !== iterations)) throw new Error(`wrong results for ${iterations} iterations`);
  return { valuesPerSecond: VALUES / seconds, busyUs: (busy * 1000) / VALUES };
}

await run(1, true); // compiles the built-in condition kernels, warms both ways (on the device, on the host)
await run(1, false);
const rows = [];
for (const iterations of ITERATIONS) {
  const device = [], host = [];
  for (let r = 0; r < ROUNDS; r++) {
    device.push(await run(iterations, true));
    host.push(await run(iterations, false));
  }
  const onDevice = median(device.map((x) => x.valuesPerSecond));
  const onHost = median(host.map((x) => x.valuesPerSecond));
  rows.push({
    iterations,
    'on device, values/s': onDevice,
    'host decides, values/s': onHost,
    'on device ÷ host decides': onDevice / onHost,
    'on device, main-thread µs per value': median(device.map((x) => x.busyUs)),
    'host decides, main-thread µs per value': median(host.map((x) => x.busyUs)),
  });
}
const first = rows[0], last = rows.at(-1);
const slope = (last['on device, main-thread µs per value'] - first['on device, main-thread µs per value']) / (last.iterations - first.iterations);
report('device-control', `a replayed pipeline's on-device loop against the same loop decided on the host, ${VALUES} values on 4 lanes, medians of ${ROUNDS} rounds, ${device.kind === 'cuda' ? device.name : 'host device'}`, rows);
console.log(`main-thread time per iteration of the on-device loop (slope of µs per value over iterations): ${slope.toFixed(3)} µs`);
