// bench/jetstream: one JetStream worker on Device.default() against a local nats-server, with
// 1 MiB messages, beside what bounds it, measured in the same run:
//   (a) broker: the broker and the JavaScript client alone, no GPU: a publisher fills the input
//       stream (publish_frames_per_s), then a relay consumes each message, publishes a result of
//       the same size with a message ID and acks the input once that publish is acknowledged, with
//       as many messages in flight as the worker has (broker_frames_per_s: the worker's traffic);
//   (b) memory: the worker's GPU pipeline (upload → kernel → download) fed from memory: pinned
//       frames filled by a copy of the payload, as the worker's decode does (memory_frames_per_s);
//   (c) worker: fromJetStream → the same pipeline → toJetStream (worker_frames_per_s).
// It prints one JSON object, with ratio = (c) / min((a), (b)) (target ≥ 0.8), and writes it to
// $OUT/jetstream.json when OUT is set. The server is $NATS_SERVER, else .device/nats-server
// (scripts/pack-nats.sh copies this machine's there), else nats-server on PATH; it runs in a
// temporary folder with JetStream in memory and a max_payload that fits 1 MiB and its headers.
//   node bench/jetstream.mjs [--frames 2000] [--lanes 3] [--in-flight 8]
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { lastValueFrom, count as countAll, tap } from 'rxjs';
import { AckPolicy, RetentionPolicy, StorageType, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Device, LanePool, download, framesFrom, launch, upload } from 'rxcuda';
import { JetStreamCounts, fromJetStream, toJetStream } from 'rxcuda/jetstream';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const FRAMES = arg('frames', 2000);
const LANES = arg('lanes', 3);
const IN_FLIGHT = arg('in-flight', 8);
const BYTES = 1024 * 1024;
const WORDS = BYTES / 4;

function serverBinary() {
  const root = new URL('..', import.meta.url).pathname;
  const candidates = [process.env.NATS_SERVER, join(root, '.device', 'nats-server'), ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'nats-server')), '/usr/sbin/nats-server'];
  for (const file of candidates.filter(Boolean)) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {}
  }
  throw new Error('No nats-server: set NATS_SERVER, or run scripts/pack-nats.sh where one is installed (apt-get install nats-server) and carry .device/');
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

async function startServer() {
  const dir = mkdtempSync(join(tmpdir(), 'rxcuda-bench-nats-'));
  const port = await freePort();
  const binary = serverBinary();
  writeFileSync(join(dir, 'server.conf'), `listen: 127.0.0.1:${port}\nmax_payload: 8MB\njetstream { store_dir: "${join(dir, 'store')}", max_memory_store: 8G }\n`);
  const child = spawn(binary, ['-c', join(dir, 'server.conf')], { stdio: 'ignore' });
  const servers = `nats://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    try {
      const nc = await connect({ servers });
      return { binary, servers, nc, stop: async () => {
        await nc.close();
        child.kill('SIGTERM');
        await new Promise((resolve) => child.exitCode !== null ? resolve() : child.once('exit', resolve));
        rmSync(dir, { recursive: true, force: true });
      } };
    } catch (error) {
      if (tries > 200 || child.exitCode !== null) throw new Error(`nats-server (${binary}) did not start: ${error}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const { binary, servers, nc, stop } = await startServer();
const js = jetstream(nc);
const jsm = await jetstreamManager(nc);
const payload = new Uint8Array(BYTES).map((_, i) => i * 7);

/** Fresh input and output streams and a durable consumer on the input. */
async function freshStreams() {
  for (const name of ['IN', 'OUT', 'DEAD']) await jsm.streams.delete(name).catch(() => {});
  await jsm.streams.add({ name: 'IN', subjects: ['in.>'], storage: StorageType.Memory, retention: RetentionPolicy.Workqueue });
  await jsm.streams.add({ name: 'OUT', subjects: ['out.>'], storage: StorageType.Memory, max_bytes: 2 * 1024 ** 3, discard: 'old' });
  await jsm.streams.add({ name: 'DEAD', subjects: ['dead.>'], storage: StorageType.Memory });
  await jsm.consumers.add('IN', { durable_name: 'bench', ack_policy: AckPolicy.Explicit, ack_wait: 60e9, max_ack_pending: 1000 });
  return js.consumers.get('IN', 'bench');
}

/** Publishes the input frames, 64 publishes in flight; frames/s. */
async function publish() {
  const start = performance.now();
  for (let i = 0; i < FRAMES; i += 64)
    await Promise.all(Array.from({ length: Math.min(64, FRAMES - i) }, (_, k) => js.publish(`in.${i + k}`, payload, { msgID: `in-${i + k}` })));
  return FRAMES / ((performance.now() - start) / 1000);
}

/**
 * (a) consume → publish a result with a message ID → ack after its publish ack, with at most
 * IN_FLIGHT messages unsettled, asking for more in batches of at least half of that (as the worker does).
 */
function relay(consumer) {
  const start = performance.now();
  let done = 0;
  let held = 0;
  let requested = 0;
  return new Promise((resolve, reject) => {
    const pull = () => {
      const left = FRAMES - done - held - requested;
      const ask = Math.min(IN_FLIGHT - held - requested, left);
      if (ask <= 0 || ask < Math.min(IN_FLIGHT / 2, left)) return;
      requested += ask;
      let got = 0;
      consumer.fetch({ max_messages: ask, expires: 2000 }).then(async (messages) => {
        for await (const m of messages) {
          got++;
          requested--;
          held++;
          js.publish('out.relay', m.data, { msgID: `IN:${m.seq}` }).then(() => {
            m.ack();
            held--;
            if (++done === FRAMES) resolve(FRAMES / ((performance.now() - start) / 1000));
            else pull();
          }, reject);
        }
      }).then(() => {
        requested -= ask - got;
        pull();
      }, reject);
    };
    pull();
  });
}

const device = Device.default();
const module = await device.compile(`extern "C" __global__ void invert(unsigned* x, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = ~x[i];
}`, { name: 'bench-jetstream.cu' });
const invert = module.kernel('invert', ['ptr', 'u32'], {
  cpu: (_, [bytes, n]) => {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, n);
    for (let i = 0; i < n; i++) words[i] = ~words[i] >>> 0;
  },
});
const config = { grid: 1024, block: 256 };
const pool = new LanePool(device, { lanes: LANES, inFlight: IN_FLIGHT });

/** (b) the pipeline fed from memory: each frame filled by a copy of the payload. */
async function fromMemory(frames) {
  const start = performance.now();
  await lastValueFrom(framesFrom(pool, { dtype: 'u8', length: BYTES, count: frames }, (frame) => void frame.data.set(payload)).pipe(
    upload((frame) => frame),
    launch(invert, (w) => ({ config, args: [w.buffers.input, WORDS] })),
    download((w) => w.buffers.input, 'out', { lend: 'release' }),
    tap((w) => w.results.out.release()),
    countAll(),
  ));
  return frames / ((performance.now() - start) / 1000);
}

/** (c) the worker: from JetStream, the same pipeline, results to JetStream; timed to the last ack. */
async function worker(consumer) {
  const counts = new JetStreamCounts();
  const abort = new AbortController();
  const start = performance.now();
  let end = 0;
  await lastValueFrom(fromJetStream(consumer, pool, {
    frameBytes: BYTES,
    counts,
    signal: abort.signal,
    deadLetter: { jetstream: js, subject: 'dead.bench', connection: nc },
    process: (messages) => messages.pipe(
      upload((m) => m.data),
      launch(invert, (w) => ({ config, args: [w.buffers.input, WORDS] })),
      download((w) => w.buffers.input, 'out', { lend: 'release' }),
      toJetStream(js, 'out.worker', (w) => w.results.out.data),
      tap((w) => w.results.out.release()),
    ),
  }).pipe(tap(() => {
    if (counts.acked === FRAMES) {
      end = performance.now();
      abort.abort();
    }
  })), { defaultValue: undefined });
  if (counts.acked !== FRAMES) throw new Error(`The worker acked ${counts.acked} of ${FRAMES} frames: ${JSON.stringify(counts)}`);
  return { rate: FRAMES / ((end - start) / 1000), counts: counts.toJSON() };
}

try {
  let consumer = await freshStreams();
  const publish_frames_per_s = await publish();
  const broker_frames_per_s = await relay(consumer);
  await fromMemory(Math.min(50, FRAMES)); // warm: the pool's memory, the kernel's first launch
  const memory_frames_per_s = await fromMemory(FRAMES);
  consumer = await freshStreams();
  await publish();
  const { rate: worker_frames_per_s, counts } = await worker(consumer);
  const bound = Math.min(broker_frames_per_s, memory_frames_per_s);
  const result = {
    name: 'jetstream',
    device: String(device),
    server: binary,
    frames: FRAMES,
    frame_bytes: BYTES,
    lanes: LANES,
    in_flight: IN_FLIGHT,
    publish_frames_per_s,
    broker_frames_per_s,
    memory_frames_per_s,
    worker_frames_per_s,
    worker_gib_per_s: (worker_frames_per_s * BYTES) / 1024 ** 3,
    ratio: worker_frames_per_s / bound,
    bound_by: broker_frames_per_s <= memory_frames_per_s ? 'broker' : 'memory',
    target: 0.8,
    counts,
    node: process.version,
    date: new Date().toISOString(),
  };
  console.log(JSON.stringify(result, null, 2));
  if (process.env.OUT) {
    mkdirSync(process.env.OUT, { recursive: true });
    writeFileSync(join(process.env.OUT, 'jetstream.json'), JSON.stringify(result, null, 2) + '\n');
  }
} finally {
  pool.close();
  await stop();
}
