// The load runs of docs/reliability.md ("Load"), each in a process of its own that must end by
// itself: `node scripts/load-runs.mjs all [host|cuda]` runs every one and prints one JSON line
// each; `node scripts/load-runs.mjs NAME [host|cuda]` runs one in this process. Build first
// (`npx tsc`). The runs:
//   steps-2000  400 000 host steps over 2000 streams, each stream's in order
//   steps-1     10^6 host steps on one stream, in order
//   frames      5 x 10^5 values over 8 lanes (upload, a builtin, download), each once, each lane's in order
//   workers     600 workers terminated with a pipeline in flight each, 8 at a time
//   exit        80 processes that call process.exit() with 1000 steps pending
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const [name = 'all', backend = 'host'] = process.argv.slice(2);
const self = fileURLToPath(import.meta.url);
const entry = new URL('../dist/src/index.js', import.meta.url).href;
const { Builtins, Device, download, enqueue, onStreams, upload } = await import(entry);
const { from, lastValueFrom, range, map, tap, count } = await import('rxjs');
const device = () => (backend === 'cuda' ? Device.get(0) : Device.host());

/** Runs `args` with this script in a child process; resolves with its exit, time and last line. */
function child(args, timeout = 600_000) {
  return new Promise((resolve) => {
    const started = performance.now();
    const proc = spawn(process.execPath, [self, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeout);
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').at(-1) ?? '';
      let result;
      try {
        result = JSON.parse(line);
      } catch {
        result = { output: line.slice(0, 200) };
      }
      resolve({ code, signal, seconds: Math.round((performance.now() - started) / 100) / 10, ...result, ...(err ? { stderr: err.slice(0, 500) } : {}) });
    });
  });
}

const runs = {
  /** 400 000 host steps over 2000 streams, enqueued all at once; each stream's run in order. */
  async 'steps-2000'() {
    const streams = Array.from({ length: 2000 }, () => device().createStream());
    let outOfOrder = 0;
    let ran = 0;
    streams.forEach((stream) => {
      let next = 0;
      for (let i = 0; i < 200; i++) {
        const index = i;
        stream.hostLaunch(index % 10 === 0 ? () => Promise.resolve().then(() => { if (next++ !== index) outOfOrder++; ran++; }) : () => { if (next++ !== index) outOfOrder++; ran++; });
      }
    });
    await Promise.all(streams.map((stream) => stream.synchronized()));
    return { ran, outOfOrder };
  },
  /** 10^6 host steps on one stream, in rounds of 10^4 awaited; in order. */
  async 'steps-1'() {
    const stream = device().createStream();
    let next = 0;
    let outOfOrder = 0;
    for (let round = 0; round < 100; round++) {
      for (let i = 0; i < 10_000; i++) {
        const index = round * 10_000 + i;
        stream.hostLaunch(() => void (next++ !== index && outOfOrder++));
      }
      await stream.synchronized();
    }
    return { ran: next, outOfOrder };
  },
  /** 5 x 10^5 small values over 8 lanes: each comes out once, right, and each lane's in order. */
  async frames() {
    const d = device();
    const builtins = await Builtins.for(d);
    const N = 500_000;
    const seen = new Uint8Array(N);
    const lastOnLane = new Map();
    let wrong = 0;
    let outOfOrder = 0;
    const emitted = await lastValueFrom(range(0, N).pipe(
      map((i) => Uint32Array.of(i, i + 1, i + 2, i + 3)),
      onStreams(d, { lanes: 8 }),
      upload((data) => data, 'x'),
      enqueue((w, stream) => builtins.scale(stream, w.buffers.x, w.buffers.x, 2), 'double'),
      download((w) => w.buffers.x, 'x'),
      tap((w) => {
        const i = w.results.x[0] / 2;
        if (w.results.x[3] !== 2 * (i + 3)) wrong++;
        if (seen[i]++) wrong++;
        const last = lastOnLane.get(w.stream) ?? -1;
        if (w.index <= last) outOfOrder++;
        lastOnLane.set(w.stream, w.index);
      }),
      count(),
    ));
    return { emitted, missing: seen.filter((x) => x !== 1).length, wrong, outOfOrder, lanes: lastOnLane.size };
  },
  /** 600 workers, 8 at a time, each with a pipeline in flight when it is terminated. */
  async workers() {
    const exits = {};
    const script = `
      const { parentPort } = require('node:worker_threads');
      Promise.all([import(${JSON.stringify(entry)}), import('rxjs')]).then(([{ Device, Builtins, onStreams, upload, download, enqueue }, { interval, map }]) =>
        Builtins.for(${backend === 'cuda' ? 'Device.get(0)' : 'Device.host()'}).then((builtins) => {
          const device = builtins.device;
          interval(0).pipe(map((i) => new Uint32Array(4096).fill(i)), onStreams(device, { lanes: 2 }), upload((x) => x, 'x'),
            enqueue((w, s) => builtins.scale(s, w.buffers.x, w.buffers.x, 3)), download((w) => w.buffers.x, 'x')).subscribe();
          setTimeout(() => parentPort.postMessage('in flight'), 5);
        }));`;
    for (let round = 0; round < 75; round++) {
      const workers = Array.from({ length: 8 }, () => new Worker(script, { eval: true }));
      const ended = workers.map((w) => new Promise((resolve) => w.once('exit', (code) => resolve((exits[code] = (exits[code] ?? 0) + 1)))));
      await Promise.all(workers.map((w) => new Promise((resolve) => { w.once('message', resolve); w.once('error', resolve); })));
      await new Promise((resolve) => setTimeout(resolve, round % 5));
      await Promise.all(workers.map((w) => w.terminate()));
      await Promise.all(ended);
    }
    return { workers: 600, exits };
  },
  /** One process's part of `exit`: 1000 steps pending behind a held one, then process.exit(). */
  async 'exit-one'() {
    const stream = device().createStream();
    stream.hostLaunch(() => new Promise((resolve) => setTimeout(resolve, 1000)));
    for (let i = 0; i < 1000; i++) stream.hostLaunch(() => {});
    setTimeout(() => process.exit(0), 2);
    return undefined; // never printed: the process exits first
  },
  /** 80 processes that call process.exit() with 1000 steps pending. */
  async exit() {
    const ends = {};
    for (let i = 0; i < 80; i++) {
      const run = await child(['exit-one', backend], 60_000);
      const end = run.signal ?? run.code;
      ends[end] = (ends[end] ?? 0) + 1;
    }
    return { runs: 80, ends };
  },
};

if (name === 'all') {
  for (const run of ['steps-2000', 'steps-1', 'frames', 'workers', 'exit']) console.log(JSON.stringify({ run, backend, ...(await child([run, backend])) }));
} else {
  const started = performance.now();
  const result = await runs[name]();
  if (result !== undefined) console.log(JSON.stringify({ ...result, runSeconds: Math.round((performance.now() - started) / 100) / 10 }));
  // Nothing closed, nothing exited: the process must end by itself once its work is done.
}
