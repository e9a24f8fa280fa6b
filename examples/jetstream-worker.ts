// A JetStream worker: frames from a durable pull consumer → upload → a kernel → download →
// results published with message IDs, with the worker's counters on a progress bar. Run as many
// as you like, on one machine or many: the server spreads the messages over them. On a GPU, else
// on the host device. Stops by itself after `--idle` ms without messages, or on SIGTERM/SIGINT.
// Run: npx tsc && node dist/examples/jetstream-worker.js --servers nats://127.0.0.1:4222 --setup 1000
//   --setup N   creates the streams and the consumer where missing and publishes N frames first
import { parseArgs } from 'node:util';
import { Presets, SingleBar } from 'cli-progress';
import { Device, LanePool, download, launch, upload } from 'rxcuda';
import { JetStreamCounts, connectJetStream, fromJetStream, toJetStream } from 'rxcuda/jetstream';
import { AckPolicy, jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';

const { values: args } = parseArgs({
  options: {
    servers: { type: 'string', default: 'nats://127.0.0.1:4222' },
    stream: { type: 'string', default: 'FRAMES' },
    consumer: { type: 'string', default: 'gpu-workers' },
    lanes: { type: 'string', default: '2' },
    'frame-bytes': { type: 'string', default: String(64 * 1024) },
    idle: { type: 'string', default: '3000' },
    setup: { type: 'string' },
    replicas: { type: 'string', default: '1' },
  },
});
const servers = args.servers.split(',');
const frameBytes = Number(args['frame-bytes']);

/** Streams for the frames, the results and the dead letters, and the durable consumer, where missing; then `count` frames. */
async function setup(connection: NatsConnection, jetstream: JetStreamClient, count: number): Promise<void> {
  const jsm = await jetstreamManager(connection);
  const replicas = Number(args.replicas);
  for (const [name, subject] of [[args.stream, 'frames.>'], ['RESULTS', 'results.>'], ['DEAD', 'dead.>']] as const)
    await jsm.streams.info(name).catch(() => jsm.streams.add({ name, subjects: [subject], num_replicas: replicas }));
  await jsm.consumers.info(args.stream, args.consumer).catch(() =>
    jsm.consumers.add(args.stream, { durable_name: args.consumer, ack_policy: AckPolicy.Explicit, ack_wait: 30e9, max_deliver: 5, max_ack_pending: 1000, num_replicas: replicas }),
  );
  const frame = new Uint32Array(frameBytes / 4);
  for (let i = 0; i < count; i += 64)
    await Promise.all(Array.from({ length: Math.min(64, count - i) }, (_, k) => jetstream.publish(`frames.${i + k}`, new Uint8Array(frame.fill(i + k).buffer.slice(0)))));
}

if (args.setup) {
  const connection = await connect({ servers });
  await setup(connection, jetstream(connection), Number(args.setup));
  await connection.drain();
}

const device = Device.default();
const module = await device.compile(`extern "C" __global__ void invert(unsigned* x, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = ~x[i];
}`);
// A plain pointer: the frame's bytes go in as they are (u8 memory), and the kernel reads words.
const invert = module.kernel('invert', ['ptr', 'u32'], {
  cpu: (_, [bytes, n]) => {
    const words = new Uint32Array((bytes as Uint8Array).buffer, (bytes as Uint8Array).byteOffset, n);
    for (let i = 0; i < n; i++) words[i] = ~words[i]! >>> 0;
  },
});

const { connection, jetstream: js, consumer } = await connectJetStream({ servers, stream: args.stream, consumer: args.consumer });
const waiting = (await consumer.info()).num_pending;
const pool = new LanePool(device, { lanes: Number(args.lanes) });
const counts = new JetStreamCounts();
const bar = new SingleBar(
  { format: `${device} {bar} {value} acked | pulled {pulled} | in flight {inFlight} | nak {naked} | redelivered {redelivered} | dead {deadLettered}`, noTTYOutput: true, notTTYSchedule: 1000 },
  Presets.shades_classic,
);
bar.start(Math.max(1, waiting), 0, counts.toJSON());
const timer = setInterval(() => bar.update(counts.acked, counts.toJSON()), 200);

fromJetStream(consumer, pool, {
  frameBytes,
  counts,
  idle: Number(args.idle),
  stopOn: ['SIGTERM', 'SIGINT'],
  drain: connection,
  deadLetter: { jetstream: js, subject: 'dead.frames' },
  process: (messages) =>
    messages.pipe(
      upload((m) => m.data), // pinned: the device copies the frame itself
      launch(invert, { grid: 64, block: 256 }, [(w) => w.buffers.input, (w) => w.value.size / 4]),
      download((w) => w.buffers.input, 'out'),
      toJetStream(js, 'results.frames', (w) => w.results.out),
    ),
}).subscribe({
  error: (error: Error) => {
    clearInterval(timer);
    bar.stop();
    console.error(String(error));
    pool.close();
    process.exitCode = 1;
  },
  complete: () => {
    clearInterval(timer);
    bar.update(counts.acked, counts.toJSON());
    bar.stop();
    pool.close();
    const { pulled, acked, naked, redelivered, deadLettered, duplicates } = counts;
    console.log(`worker done: pulled ${pulled}, acked ${acked}, nak ${naked}, redelivered ${redelivered}, dead-lettered ${deadLettered}, duplicate results ${duplicates}`);
  },
});
