// bench/launch: host cost of one kernel launch through rxcuda against the raw driver call from
// C++ (cuLaunchKernelEx), same kernels, same process. Bursts of 256 launches are timed; the drain
// after each burst is not, so the GPU's drain rate is not what is measured, and both sides drain
// the same way (a blocking cuStreamSynchronize from the baseline addon). Then the launch context's
// costs, against plain launches of the same kernel in alternating bursts: one no-op hook, three,
// and a launch of a template's kernel whose specialization is compiled (the cached lookup).
// RXCUDA_BENCH_DIST=<folder> measures another build of rxcuda (an earlier one, say) instead of this
// one; RXCUDA_BENCH_BEFORE=<folder> measures both in one process, their bursts alternating with the
// native ones, and reports each ratio and their difference (the other build loads its own addon
// where its folder has one).
import { baseline, median, report, rxcudaUnderTest } from './support.mjs';

const { Device, LaunchConfig, onLaunch } = await rxcudaUnderTest();
const before = process.env.RXCUDA_BENCH_BEFORE ? await rxcudaUnderTest(process.env.RXCUDA_BENCH_BEFORE) : undefined;

const BURST = 256;
const BURSTS = 2000;

const SOURCE = `
extern "C" __global__ void args0() {}
extern "C" __global__ void args1(float* a) {}
extern "C" __global__ void args4(unsigned n, float a, const float* x, float* y) {}
extern "C" __global__ void args16(unsigned a0, unsigned a1, unsigned a2, unsigned a3,
                                  float f0, float f1, float f2, float f3,
                                  float* p0, float* p1, float* p2, float* p3,
                                  float* p4, float* p5, float* p6, float* p7) {}
`;

/** A build's stream, kernels and arguments for the four cases. */
async function setUp({ Device, LaunchConfig }) {
  const device = Device.default();
  const stream = device.createStream({ nonBlocking: true });
  const module = await device.compile(SOURCE, { name: 'bench-launch.cu' });
  const buffer = stream.alloc('f32', 1024);
  const cases = [
    { args: 0, kernel: module.kernel('args0', []), values: [] },
    { args: 1, kernel: module.kernel('args1', ['ptr']), values: [buffer] },
    { args: 4, kernel: module.kernel('args4', ['u32', 'f32', 'ptr', 'ptr']), values: [1024, 2.5, buffer, buffer] },
    {
      args: 16,
      kernel: module.kernel('args16', [...Array(4).fill('u32'), ...Array(4).fill('f32'), ...Array(8).fill('ptr')]),
      values: [1, 2, 3, 4, 0.5, 1.5, 2.5, 3.5, ...Array(8).fill(buffer)],
    },
  ];
  return { device, stream, cases, config: new LaunchConfig({ grid: 1, block: 32 }) };
}

const { device, stream, cases, config } = await setUp({ Device, LaunchConfig });
const other = before ? await setUp(before) : undefined;

/** Nanoseconds per launch over one burst through rxcuda; the drain after it is untimed. */
function rxcudaBurst(kernel, values, on = { stream, config }) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < BURST; i++) on.stream.launch(kernel, on.config, values);
  const end = process.hrtime.bigint();
  baseline.synchronize(on.stream.handle);
  return Number(end - start) / BURST;
}

function napiCallCost() {
  const start = process.hrtime.bigint();
  for (let i = 0; i < 1e6; i++) baseline.noop();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Medians of alternating bursts: `setUp()` before each burst of the second kind, undone after it. */
function alternate(kernel, values, setUp) {
  const plain = [];
  const other = [];
  for (let b = 0; b < 50; b++) rxcudaBurst(kernel, values);
  for (let b = 0; b < BURSTS; b++) {
    plain.push(rxcudaBurst(kernel, values));
    const undo = setUp();
    other.push(rxcudaBurst(kernel, values));
    undo();
  }
  return [median(plain), median(other)];
}

const rows = [];
for (const [i, { args, kernel, values }] of cases.entries()) {
  const sizes = Uint32Array.from(kernel.signature.map((p) => (p === 'ptr' ? 8 : 4)));
  const theirCase = other?.cases[i];
  const ours = [];
  const earlier = [];
  const theirs = [];
  for (let b = 0; b < 50; b++) rxcudaBurst(kernel, values); // warm-up: JIT, caches
  for (let b = 0; theirCase && b < 50; b++) rxcudaBurst(theirCase.kernel, theirCase.values, other);
  baseline.launchBursts(kernel.handle, stream.handle, sizes, 50, BURST);
  // Bursts alternate, so drifts of clock or driver state hit every side alike.
  for (let b = 0; b < BURSTS; b++) {
    ours.push(rxcudaBurst(kernel, values));
    if (theirCase) earlier.push(rxcudaBurst(theirCase.kernel, theirCase.values, other));
    theirs.push(baseline.launchBursts(kernel.handle, stream.handle, sizes, 1, BURST)[0]);
  }
  const rx = median(ours);
  const native = median(theirs);
  const row = { args, rxcuda_us: rx / 1000, native_us: native / 1000, ratio: rx / native };
  if (theirCase) Object.assign(row, { before_us: median(earlier) / 1000, ratio_before: median(earlier) / native, ratio_change: (rx - median(earlier)) / native });
  rows.push(row);
}
const contextRows = [];
if (onLaunch) {
  const { kernel, values } = cases[2];
  const noop = () => {};
  const oneHook = alternate(kernel, values, () => kernel.onLaunch(noop));
  const threeHooks = alternate(kernel, values, () => {
    const undo = [onLaunch(noop), kernel.onLaunch(noop), kernel.onLaunch(noop)];
    return () => undo.forEach((u) => u());
  });
  const template = device.template('extern "C" __global__ void args4(unsigned n, float a, const float* x, float* y) { (void)B; }', { name: 'bench-template.cu' });
  const specialized = template.kernel('args4', ['u32', 'f32', 'ptr', 'ptr'], { specialize: () => ({ B: 1 }), cpu: () => {} });
  stream.launch(specialized, config, values);
  await stream.synchronized(); // compiled: later launches find it
  const lookup = [];
  const plain = [];
  for (let b = 0; b < BURSTS; b++) {
    plain.push(rxcudaBurst(kernel, values));
    lookup.push(rxcudaBurst(specialized, values));
  }
  const rowOf = (name, [without, withIt], target) => ({ case: name, plain_us: without / 1000, with_us: withIt / 1000, ratio: withIt / without, target });
  contextRows.push(
    rowOf('one no-op hook (kernel.onLaunch)', oneHook, '≤ 1.05'),
    rowOf('three no-op hooks (one global, two of the kernel)', threeHooks, 'to compare'),
    rowOf('a specialized kernel, specialization compiled (cached lookup)', [median(plain), median(lookup)], 'to compare'),
  );
  template.close();
}
await stream.synchronized();
napiCallCost();
console.log(`an empty Node-API call from JavaScript costs ${napiCallCost().toFixed(1)} ns here`);
const from = process.env.RXCUDA_BENCH_DIST ? ` (rxcuda from ${process.env.RXCUDA_BENCH_DIST})` : '';
const against = before ? `, against the build in ${process.env.RXCUDA_BENCH_BEFORE} in the same bursts` : '';
report(process.env.RXCUDA_BENCH_DIST ? 'launch-before' : 'launch', `per-launch host cost, ${device.name}, bursts of ${BURST}, median of ${BURSTS} alternating bursts each${from}${against}`, rows, 'ratio ≤ 1.10');
if (contextRows.length) report('launch-context', `launch context costs, 4 arguments, ${device.name}, against plain launches in alternating bursts`, contextRows);
stream.close();
other?.stream.close();
