// Study: the two library examples' pipelines (bench/example-pipelines.mjs) eager and under
// `replay`, on the default device: values per second in alternating rounds, the executables
// launched per replayed value (1 when every value replays the first one's graph), and the
// RXCUDA_REPLAY_EAGER warnings. On the host device at the examples' own sizes
// (examples/perceptron.ts, examples/spectrogram.ts), on a GPU at bench/libraries' sizes. Prints
// JSON: each side's median values per second, the quartiles of the rounds' ratios, and the main
// thread's CPU time per value (on Linux; what a loaded machine's wall time blurs).
// DEVICE=host runs on the host device where there is a GPU too; ROUNDS=n sets the rounds
// (default 15), VALUES=n the values per round (default 200 on the host device, 1000 on a GPU):
//   node bench/study/replay-examples.mjs
//   DEVICE=host node bench/study/replay-examples.mjs
import { readFileSync } from 'node:fs';
import { lastValueFrom, map, range } from 'rxjs';
import * as rx from 'rxcuda';
import { perceptron, spectrogram } from '../example-pipelines.mjs';
import { median, percentile } from '../support.mjs';

const { Device, GraphExec, REPLAY_EAGER_WARNING, onStreams, replay } = rx;
const device = process.env.DEVICE === 'host' ? Device.host() : Device.default();
const gpu = device.kind === 'cuda';
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const VALUES = Number(process.env.VALUES ?? (gpu ? 1000 : 200));

const warnings = [];
process.on('warning', (w) => void (w.code === REPLAY_EAGER_WARNING && warnings.push(w.message)));
// Counts the executables launched (a study may wrap a method; shipped code has no switch for it).
let launches = 0;
const launch = GraphExec.prototype.launch;
GraphExec.prototype.launch = function counted(...args) {
  launches++;
  return launch.apply(this, args);
};

/** Nanoseconds the main thread has run on a CPU (Linux), which other processes' load does not add to. */
function onCpu() {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}

/** Values per second; `cpu` gets the main thread's CPU time per value, in µs. */
async function valuesPerSecond(count, work, replayed, cpu = []) {
  const [start, ran] = [performance.now(), onCpu()];
  await lastValueFrom(range(0, count).pipe(onStreams(device, { lanes: gpu ? 4 : 2 }), replayed ? replay(work) : work, map((w) => w.index)));
  cpu.push((onCpu() - ran) / count / 1000);
  return count / ((performance.now() - start) / 1000);
}

async function study(name, { work, close }) {
  await valuesPerSecond(20, work, false); // the libraries ready, the kernels loaded, the pool warm
  const eager = [], replayed = [], eagerCpu = [], replayedCpu = [];
  const before = warnings.length;
  let launched = 0;
  const replays = async () => {
    const at = launches;
    replayed.push(await valuesPerSecond(VALUES, work, true, replayedCpu));
    launched += launches - at;
  };
  // Alternating which goes first, so that neither always follows the other.
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2) await replays();
    eager.push(await valuesPerSecond(VALUES, work, false, eagerCpu));
    if (round % 2 === 0) await replays();
  }
  close();
  const [e, r] = [median(eager), median(replayed)];
  const ratios = replayed.map((x, i) => x / eager[i]);
  return {
    pipeline: name, eager: e, replayed: r, ratio: r / e, unit: 'values/s',
    roundRatios: { p25: percentile(ratios, 25), median: median(ratios), p75: percentile(ratios, 75) },
    mainThreadCpuPerValue: { eager: median(eagerCpu), replayed: median(replayedCpu), unit: 'µs' },
    launchesPerValue: launched / (ROUNDS * VALUES), warnings: warnings.slice(before),
  };
}

const sizes = gpu
  ? { perceptron: { rows: 512, inputs: 784, hidden: 1024, outputs: 16 }, spectrogram: { frame: 4096, frames: 64 } }
  : { perceptron: { rows: 256, inputs: 16, hidden: 32, outputs: 10 }, spectrogram: { frame: 1024, frames: 8 } };
const rows = [
  await study(`perceptron ${JSON.stringify(sizes.perceptron)}`, await perceptron(rx, device, sizes.perceptron)),
  await study(`spectrogram ${JSON.stringify(sizes.spectrogram)}`, await spectrogram(rx, device, sizes.spectrogram)),
];
console.log(JSON.stringify({ study: 'replay-examples', device: device.name, rounds: ROUNDS, values: VALUES, rows }, null, 2));
