// bench/launch-path: the JavaScript part of a launch alone (checks, packing, the hook and context
// tests), through a native launcher that does nothing, for this build and, with
// RXCUDA_BENCH_BEFORE=<folder of another checkout, built>, for that one too, alternating in one
// process. Needs no GPU: it isolates what a change to the launch path costs, which bench/launch
// (3–4 µs launches, measured against the driver) cannot resolve below about 0.01 of a launch.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { median } from './support.mjs';

const N = 200_000;
const ROUNDS = 40;

async function build(internal) {
  const { standInLaunch } = await import(internal);
  const made = standInLaunch(['u32', 'f32', 'ptr', 'ptr'], (array) => [1024, 2.5, array, array]);
  // Stream.launch's call, in this build and in one from before kernels had engines.
  const rounds = 'engine' in made.kernel
    ? ({ kernel, stream, config, args }) => { for (let i = 0; i < N; i++) kernel.engine.launchOn(stream, config, args); }
    : ({ kernel, stream, config, args }) => { for (let i = 0; i < N; i++) kernel.launchOn(stream, config, args); };
  return { ...made, rounds };
}

const builds = { this: await build('rxcuda/internal') };
if (process.env.RXCUDA_BENCH_BEFORE) builds.before = await build(pathToFileURL(join(process.env.RXCUDA_BENCH_BEFORE, 'dist/src/internal.js')).href);
const times = Object.fromEntries(Object.keys(builds).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++)
  for (const [name, made] of Object.entries(builds)) {
    const start = process.hrtime.bigint();
    made.rounds(made);
    times[name].push(Number(process.hrtime.bigint() - start) / N);
  }
for (const [name, values] of Object.entries(times)) console.log(`${name}: ${median(values).toFixed(1)} ns of JavaScript per launch (median of ${ROUNDS} rounds of ${N})`);
