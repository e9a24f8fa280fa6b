// The child process of test/behaviour/exit-with-queues.test.ts and scripts/exit-with-queues.mjs:
// environments that end while their streams' queues are full. Run it in a process of its own, so
// that a crash is seen as a signal:
//   node scripts/exit-with-queues-child.mjs --mode workers --rounds 20 --workers 8 --backend host
// `workers`: each round starts workers that fill their queues; half of them call process.exit(7)
// from an onDone callback or a host step once 10 have run, the others are terminated as soon as
// they report "queued". Prints { rounds, exits, before, after } (completion counts) as JSON.
// `main`: the same workers are left running while this thread fills queues of its own and calls
// process.exit(0) from one of its host steps; prints { queued, ranBeforeExit } just before.
// Needs the TypeScript build: npx tsc -p tsconfig.json.
import { Worker } from 'node:worker_threads';
import { parseArgs } from 'node:util';

const core = new URL('../dist/src/core/', import.meta.url).href;

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'workers' },
    rounds: { type: 'string', default: '20' },
    workers: { type: 'string', default: '8' },
    backend: { type: 'string', default: 'host' },
  },
});
const rounds = Number(values.rounds);
const workerCount = Number(values.workers);
const { backend, mode } = values;
if (!['host', 'cuda'].includes(backend)) throw new Error(`Expected --backend to be host or cuda, got ${backend}`);
if (!['workers', 'main'].includes(mode)) throw new Error(`Expected --mode to be workers or main, got ${mode}`);

// Fills `streamCount` streams with `commands` rounds of small commands each, none awaited: fill
// and copy back on every stream, every 8th command a record that the next stream waits for, every
// 4th an onDone on every stream and a host step on the first. `exitFrom` ('onDone' or 'hostLaunch')
// calls process.exit(code) once 10 of those callbacks have run. Returns the number of commands.
// It is the source of the workers too, so it names nothing outside itself but `Device`.
function fillQueues(Device, backend, streamCount, commands, exitFrom, code, onExit) {
  const device = backend === 'cuda' ? Device.get(0) : Device.host();
  const streams = Array.from({ length: streamCount }, () => device.createStream());
  const events = streams.map(() => device.createEvent());
  const arrays = streams.map((s) => s.alloc('f32', 16));
  const hosts = streams.map(() => device.allocHost('f32', 16));
  let done = 0;
  let steps = 0;
  const exit = () => {
    onExit?.(steps + done);
    process.exit(code);
  };
  let queued = 0;
  for (let i = 0; i < commands; i++) {
    for (let j = 0; j < streamCount; j++) {
      const s = streams[j];
      s.fill(arrays[j], i);
      s.copy(hosts[j], arrays[j]);
      queued += 2;
      if (i % 8 === 7) {
        s.record(events[j]);
        streams[(j + 1) % streamCount].wait(events[j]);
        queued += 2;
      }
      if (i % 4 === 3) {
        s.onDone(() => {
          if (++done === 10 && exitFrom === 'onDone') exit();
        });
        queued++;
      }
    }
    if (i % 4 === 3) {
      streams[0].hostLaunch(() => {
        if (++steps === 10 && exitFrom === 'hostLaunch') exit();
      });
      queued++;
    }
  }
  return queued;
}

// Workers keep their event loop alive, so that the ones not exiting by themselves end by
// terminate() alone (exit code 1), never by running out of work first.
const workerSource = `
  const { parentPort, workerData } = require('node:worker_threads');
  const fillQueues = ${fillQueues.toString()};
  import('${core}api/device.js').then(({ Device }) => {
    setInterval(() => {}, 1 << 30);
    const { backend, commands, exitFrom } = workerData;
    const queued = fillQueues(Device, backend, 8, commands, exitFrom, 7);
    parentPort.postMessage({ queued });
  });`;

const levels = [100, 400, 1000];
const startWorker = (commands, exitFrom) =>
  new Worker(workerSource, { eval: true, execArgv: [], workerData: { backend, commands, exitFrom } });
// Half the workers exit by themselves, alternately from an onDone callback and from a host step.
const exitFromOf = (i) => (i % 2 === 0 ? undefined : i % 4 === 1 ? 'onDone' : 'hostLaunch');
const queuedOrGone = (w) =>
  new Promise((resolve) => {
    w.once('message', resolve);
    w.once('exit', resolve);
  });

const { Device } = await import(`${core}api/device.js`);
const { addon } = await import(`${core}native/addon.js`);

if (mode === 'main') {
  // Workers with full queues still running, and this thread's own queues full, when it exits.
  const workers = Array.from({ length: workerCount }, (_, i) => startWorker(levels[i % 3], undefined));
  await Promise.all(workers.map(queuedOrGone));
  let queued = 0;
  queued = fillQueues(Device, backend, 8, 2500, 'hostLaunch', 0, (ran) => {
    process.stdout.write(`${JSON.stringify({ queued, ranBeforeExit: ran })}\n`);
  });
} else {
  const before = addon.completionCounts();
  const exits = {};
  for (let round = 0; round < rounds; round++) {
    const workers = Array.from({ length: workerCount }, (_, i) => startWorker(levels[(round + i) % 3], exitFromOf(i)));
    const ended = workers.map(
      (w) =>
        new Promise((resolve, reject) => {
          w.once('exit', (code) => {
            exits[code] = (exits[code] ?? 0) + 1;
            resolve();
          });
          w.once('error', reject);
        }),
    );
    await Promise.all(workers.map(queuedOrGone));
    await Promise.all(workers.filter((_, i) => exitFromOf(i) === undefined).map((w) => w.terminate()));
    await Promise.all(ended);
  }
  // The work the workers left behind still runs (their device threads submit what they hold); its
  // records then find no environment and must be given back all the same.
  let after = addon.completionCounts();
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    after = addon.completionCounts();
    if (after.records === before.records && after.roads === before.roads) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  console.log(JSON.stringify({ rounds, workers: workerCount, exits, before, after }));
}
