// What a worker does with what it cannot use: a missing stream or consumer, a payload larger than
// its frames, a server that is down at start. Each gets a JetStreamError that says what to do,
// and no message is acked or lost for it.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { LanePool } from '../../src/index.js';
import { JetStreamCounts, JetStreamError, connectJetStream } from '../../src/operators/jetstream/index.js';
import { freePort, startNats, type NatsServers } from '../support/nats.js';
import { describeWithTool } from '../support/tools.js';
import { DURABLE, INPUT, OUTPUT, consumerState, createStreams, publishInputs, readAll, verify, type Streams } from '../support/jetstream.js';
import { device, invertKernel, worker } from './pipeline.js';

let nats: NatsServers;
let streams: Streams | undefined;
const pools: LanePool[] = [];

beforeEach(async () => {
  nats = await startNats();
});

afterEach(async () => {
  for (const pool of pools.splice(0)) pool.close();
  await streams?.close();
  streams = undefined;
  await nats.stop();
});

/** The error a promise rejects with. */
const rejection = (promise: Promise<unknown>) => promise.then(() => expect.fail('it did not reject'), (error: unknown) => error as JetStreamError);

describeWithTool('nats-server', 'connectJetStream', { timeout: 30_000 }, () => {
  it('rejects with reason server-unreachable when no server answers', async () => {
    const servers = `nats://127.0.0.1:${await freePort()}`;
    const error = await rejection(connectJetStream({ servers, stream: INPUT, consumer: DURABLE }));
    expect(error).toBeInstanceOf(JetStreamError);
    expect(error.reason).toBe('server-unreachable');
    expect(error.message).toContain(`No NATS server answered at ${servers}`);
  });

  it('rejects with reason stream-not-found for a missing stream', async () => {
    const error = await rejection(connectJetStream({ servers: nats.servers, stream: 'NOPE', consumer: DURABLE }));
    expect(error).toBeInstanceOf(JetStreamError);
    expect(error.reason).toBe('stream-not-found');
    expect(error.message).toMatch(/^Stream `NOPE` does not exist/);
  });

  it('rejects with reason consumer-not-found for a missing consumer, and leaves the stream as it was', async () => {
    streams = await createStreams(nats.servers, { consumer: false });
    await publishInputs(streams.js, 5, 1024);
    const error = await rejection(connectJetStream({ servers: nats.servers, stream: INPUT, consumer: 'nope' }));
    expect(error.reason).toBe('consumer-not-found');
    expect(error.message).toMatch(/^Consumer `nope` of stream `FRAMES` does not exist/);
    expect((await streams.jsm.streams.info(INPUT)).state.messages).toBe(5);
  });

  it('gives a connection, a JetStream client and the consumer', async () => {
    streams = await createStreams(nats.servers);
    const { connection, consumer } = await connectJetStream({ servers: nats.servers, stream: INPUT, consumer: DURABLE });
    expect((await consumer.info()).name).toBe(DURABLE);
    await connection.drain();
  });
});

describeWithTool('nats-server', 'fromJetStream with bad input', { timeout: 30_000 }, () => {
  it('errors with reason consumer-not-found when its consumer was deleted, acking nothing', async () => {
    streams = await createStreams(nats.servers);
    await publishInputs(streams.js, 5, 1024);
    const consumer = await streams.js.consumers.get(INPUT, DURABLE);
    await streams.jsm.consumers.delete(INPUT, DURABLE);
    const counts = new JetStreamCounts();
    const run = worker(streams.js, consumer, await invertKernel(), { counts });
    pools.push(run.pool);
    const error = await rejection(lastValueFrom(run.worker));
    expect(error).toBeInstanceOf(JetStreamError);
    expect(error.reason).toBe('consumer-not-found');
    expect(counts.pulled).toBe(0);
    expect((await streams.jsm.streams.info(INPUT)).state.messages).toBe(5);
  });

  it('errors with reason payload-too-large for a payload larger than its frames, and gives the message back unacked', async () => {
    streams = await createStreams(nats.servers);
    await publishInputs(streams.js, 1, 8192);
    const counts = new JetStreamCounts();
    const invert = await invertKernel();
    const small = worker(streams.js, await streams.js.consumers.get(INPUT, DURABLE), invert, { counts, frameBytes: 4096 });
    pools.push(small.pool);
    const error = await rejection(lastValueFrom(small.worker));
    expect(error).toBeInstanceOf(JetStreamError);
    expect(error.reason).toBe('payload-too-large');
    expect(error.message).toBe(
      "Message FRAMES #1 has 8192 bytes, more than the worker's frames of 4096 (`frameBytes`): give the worker larger frames (and the server a larger max_payload); the message was given back, not acked",
    );
    expect(counts.toJSON()).toMatchObject({ pulled: 1, acked: 0, naked: 1, inFlight: 0 });
    // Given back: not acked (the ack floor is where it was), waiting to be delivered again.
    expect(await consumerState(streams.jsm)).toMatchObject({ ackFloor: 0, ackPending: 1 });
    // Nothing was lost: a worker with frames large enough processes it.
    const large = worker(streams.js, await streams.js.consumers.get(INPUT, DURABLE), invert, { frameBytes: 8192 });
    pools.push(large.pool);
    expect((await lastValueFrom(large.worker.pipe(toArray()))).map((o) => o.outcome)).toEqual(['acked']);
    expect(verify(await readAll(streams.js, OUTPUT), 1, 8192)).toEqual([]);
  });

  it('errors with reason ack-policy for a consumer without explicit acks', async () => {
    streams = await createStreams(nats.servers, { consumer: false });
    await streams.jsm.consumers.add(INPUT, { durable_name: 'none', ack_policy: 'none' as never });
    const run = worker(streams.js, await streams.js.consumers.get(INPUT, 'none'), await invertKernel());
    pools.push(run.pool);
    const error = await rejection(lastValueFrom(run.worker));
    expect(error.reason).toBe('ack-policy');
    expect(error.message).toBe('Consumer `none` of stream `FRAMES` has ack_policy `none`: a worker needs `explicit` acks');
  });

  it('refuses bad arguments at once, naming them', async () => {
    streams = await createStreams(nats.servers);
    const consumer = await streams.js.consumers.get(INPUT, DURABLE);
    const invert = await invertKernel();
    const pool = new LanePool(device);
    pools.push(pool);
    expect(() => worker(streams!.js, {} as never, invert, { pool })).toThrow(new TypeError('Expected `consumer` to be a pull Consumer (`js.consumers.get(stream, name)`), got an object'));
    expect(() => worker(streams!.js, consumer, invert, { pool, frameBytes: 0 })).toThrow(new RangeError('Expected `frameBytes` to be an integer in 1.., got 0'));
    expect(() => worker(streams!.js, consumer, invert, { pool, deadLetter: { jetstream: streams!.js, subject: 'dead letters' } })).toThrow(
      new RangeError('Expected `deadLetter.subject` to be a non-empty subject without spaces, got "dead letters"'),
    );
  });
});
