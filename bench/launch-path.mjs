// bench/launch-path: the JavaScript part of a launch alone (checks, packing, the hook and context
// tests), through a native launcher that does nothing, for this build and, with
// RXCUDA_BENCH_BEFORE=<folder of another build's dist>, for that one too, alternating in one
// process. Needs no GPU: it isolates what a change to the launch path costs, which bench/launch
// (3–4 µs launches, measured against the driver) cannot resolve below about 0.01 of a launch.
import { median } from './support.mjs';

const N = 200_000;
const ROUNDS = 40;
const properties = {
  name: 'no device', maxThreadsPerBlock: 1024, maxBlockX: 1024, maxBlockY: 1024, maxBlockZ: 64, maxGridX: 2 ** 31 - 1,
  maxGridY: 65535, maxGridZ: 65535, sharedMemoryPerBlockOptin: 232448, cooperativeLaunch: 1, clusterLaunch: 1,
};

async function build(folder) {
  const { Kernel } = await import(new URL(`${folder}/src/core/kernels/kernel.js`, import.meta.url).href);
  const { LaunchConfig } = await import(new URL(`${folder}/src/core/kernels/launch-config.js`, import.meta.url).href);
  const { DeviceArray } = await import(new URL(`${folder}/src/core/memory/memory.js`, import.meta.url).href);
  const device = { properties, checkUsable() {}, fail(error) { throw error; } };
  const native = { paramInfo: () => null, bind: () => () => {} };
  const module = { device, closed: false, usedOn() {} };
  const kernel = new Kernel(module, 'k', native, ['u32', 'f32', 'ptr', 'ptr']);
  const stream = { device, direct: true, lo: 1, hi: 0, checkOpen() {}, counted() {} };
  const array = new DeviceArray({ device, ptr: 0x7f00_0000_1000n, freed: false, portable: false, use() {} }, 'f32', 0, 16);
  return { kernel, stream, config: new LaunchConfig({ grid: 1, block: 32 }), args: [1024, 2.5, array, array] };
}

const builds = { this: await build('../dist') };
if (process.env.RXCUDA_BENCH_BEFORE) builds.before = await build(process.env.RXCUDA_BENCH_BEFORE);
const times = Object.fromEntries(Object.keys(builds).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++)
  for (const [name, { kernel, stream, config, args }] of Object.entries(builds)) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) kernel.launchOn(stream, config, args);
    times[name].push(Number(process.hrtime.bigint() - start) / N);
  }
for (const [name, values] of Object.entries(times)) console.log(`${name}: ${median(values).toFixed(1)} ns of JavaScript per launch (median of ${ROUNDS} rounds of ${N})`);
