// What a worker does with what it cannot use: a missing stream or consumer, a payload larger than
// its frames, a server that is down at start. Each gets a JetStreamError that says what to do,
// and no message is acked or lost for it.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { LanePool } from '../../src/index.js';
import { headers } from '@nats-io/transport-node';
import { DEAD_LETTER_HEADERS, JetStreamCounts, JetStreamError, connectJetStream, toJetStream, type FromJetStreamOptions } from '../../src/operators/jetstream/index.js';
import { freePort, startNats, type NatsServers } from '../support/nats.js';
import { describeWithTool } from '../support/tools.js';
import { DEAD, DURABLE, INPUT, OUTPUT, consumerState, createStreams, input, publishInputs, readAll, type Streams } from '../support/jetstream.js';
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
    const run = worker(streams, consumer, await invertKernel(), { counts });
    pools.push(run.pool);
    const error = await rejection(lastValueFrom(run.worker));
    expect(error).toBeInstanceOf(JetStreamError);
    expect(error.reason).toBe('consumer-not-found');
    expect(counts.pulled).toBe(0);
    expect((await streams.jsm.streams.info(INPUT)).state.messages).toBe(5);
  });

  it('dead-letters a payload larger than its frames with reason payload-too-large, and goes on with the others', async () => {
    streams = await createStreams(nats.servers);
    await publishInputs(streams.js, 2, 4096);
    const h = headers();
    h.set('Frame-Kind', 'large');
    const large = input(2, 8192);
    await streams.js.publish('frames.2', large, { headers: h, msgID: 'in-2' });
    await publishInputs(streams.js, 2, 4096, 3);
    const counts = new JetStreamCounts();
    const run = worker(streams, await streams.js.consumers.get(INPUT, DURABLE), await invertKernel(), { counts, frameBytes: 4096 });
    pools.push(run.pool);
    const outcomes = await lastValueFrom(run.worker.pipe(toArray()));
    const dead = outcomes.filter((o) => o.outcome === 'dead-letter');
    expect(dead.map((o) => [o.sequence, o.deliveryCount])).toEqual([[3, 1]]);
    const error = dead[0]!.error as JetStreamError;
    expect(error).toBeInstanceOf(JetStreamError);
    expect(error.reason).toBe('payload-too-large');
    expect(error.message).toBe(
      "Message FRAMES #3 has 8192 bytes, more than the worker's frames of 4096 (`frameBytes`): dead-lettered; give the worker larger frames (and the server a larger max_payload), and republish it from the dead-letter stream",
    );
    expect(outcomes.filter((o) => o.outcome === 'acked').map((o) => o.sequence).sort()).toEqual([1, 2, 4, 5]);
    expect(counts.toJSON()).toMatchObject({ pulled: 5, acked: 4, naked: 0, deadLettered: 1, inFlight: 0 });
    // Terminated: nothing waits or is held on the server, and nothing is delivered again.
    expect(await consumerState(streams.jsm)).toMatchObject({ ackPending: 0, pending: 0 });
    const letter = (await streams.jsm.streams.getMessage(DEAD, { seq: 1 }))!;
    expect(letter.data).toEqual(large);
    expect(letter.header.get(DEAD_LETTER_HEADERS.error)).toBe(`JetStreamError: ${error.message}`);
    expect([DEAD_LETTER_HEADERS.sequence, DEAD_LETTER_HEADERS.subject, DEAD_LETTER_HEADERS.deliveries, 'Frame-Kind'].map((k) => letter.header.get(k))).toEqual(['3', 'frames.2', '1', 'large']);
    expect(letter.header.get('Nats-Msg-Id')).toBe(`${INPUT}:3:dead-letter`);
    expect((await streams.jsm.streams.info(DEAD)).state.messages).toBe(1);
    const results = await readAll(streams.js, OUTPUT);
    expect(results.map((r) => r.source).sort()).toEqual([1, 2, 4, 5].map((s) => `${INPUT}:${s}`));
  });

  it('errors with reason ack-policy for a consumer without explicit acks', async () => {
    streams = await createStreams(nats.servers, { consumer: false });
    await streams.jsm.consumers.add(INPUT, { durable_name: 'none', ack_policy: 'none' as never });
    const run = worker(streams, await streams.js.consumers.get(INPUT, 'none'), await invertKernel());
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
    expect(() => worker(streams!, {} as never, invert, { pool })).toThrow(new TypeError('Expected `consumer` to be a pull Consumer (`js.consumers.get(stream, name)`), got an object'));
    expect(() => worker(streams!, consumer, invert, { pool, deadLetter: { jetstream: streams!.js, subject: 'dead letters' } })).toThrow(
      new RangeError('Expected `deadLetter.subject` to be a non-empty subject without spaces, got "dead letters"'),
    );
    expect(() => worker(streams!, consumer, invert, { pool, deadLetter: { jetstream: streams!.js, subject: 'dead.frames' } })).toThrow(
      new TypeError("Expected `deadLetter.connection` to be a NatsConnection to hear the server's max-deliveries advisories on (or `drain`, the worker's connection), got undefined"),
    );
    // `drain`, the worker's connection, hears them when no other is given.
    expect(() => worker(streams!, consumer, invert, { pool, drain: streams!.nc, deadLetter: { jetstream: streams!.js, subject: 'dead.frames' } })).not.toThrow();
  });

  it('refuses every number past its bound with a RangeError that names the bound, and takes the bound itself', async () => {
    streams = await createStreams(nats.servers);
    const consumer = await streams.js.consumers.get(INPUT, DURABLE);
    const invert = await invertKernel();
    const pool = new LanePool(device);
    pools.push(pool);
    const payload = "64 MiB, the largest max_payload nats-server takes";
    const nanos = 'the server reads it as nanoseconds in an int64';
    const timer = "2^31 - 1, a Node timer's longest";
    const refused: [Partial<FromJetStreamOptions>, string][] = [
      [{ frameBytes: 2 ** 33 }, `Expected \`frameBytes\` to be an integer in 1..67108864 (${payload}), got 8589934592`],
      [{ frameBytes: 0 }, `Expected \`frameBytes\` to be an integer in 1..67108864 (${payload}), got 0`],
      [{ expires: 1e308 }, `Expected \`expires\` to be an integer in 1000..9223372036854 (${nanos}), got 1e+308`],
      [{ expires: 999 }, `Expected \`expires\` to be an integer in 1000..9223372036854 (${nanos}), got 999`],
      [{ nakDelay: 2 ** 53 }, `Expected \`nakDelay\` to be an integer in 0..9223372036854 (${nanos}), got 9007199254740992`],
      [{ nakDelay: 0.5 }, `Expected \`nakDelay\` to be an integer in 0..9223372036854 (${nanos}), got 0.5`],
      [{ maxDeliver: 2 ** 53 }, 'Expected `maxDeliver` to be an integer in 1..9007199254740991 (a safe integer), got 9007199254740992'],
      [{ progressEvery: 2 ** 31 }, `Expected \`progressEvery\` to be a number in 1..2147483647 (${timer}), got 2147483648`],
      [{ idle: Infinity }, `Expected \`idle\` to be a number in 1..2147483647 (${timer}), got Infinity`],
    ];
    for (const [options, message] of refused) expect(() => worker(streams!, consumer, invert, { pool, ...options }), message).toThrow(new RangeError(message));
    const bounds = { frameBytes: 64 * 1024 * 1024, expires: 9223372036854, nakDelay: 9223372036854, maxDeliver: 2 ** 53 - 1, progressEvery: 2 ** 31 - 1, idle: 2 ** 31 - 1 };
    expect(() => worker(streams!, consumer, invert, { pool, ...bounds })).not.toThrow();
    expect(() => toJetStream(streams!.js, 'results.frames', () => new Uint8Array(1), { timeout: 2 ** 31 })).toThrow(
      new RangeError(`Expected \`timeout\` to be an integer in 1..2147483647 (${timer}), got 2147483648`),
    );
    expect(() => toJetStream(streams!.js, 'results.frames', () => new Uint8Array(1), { retries: 2 ** 53 })).toThrow(
      new RangeError('Expected `retries` to be an integer in 1..9007199254740991 (a safe integer), got 9007199254740992'),
    );
    expect(pool.stats.buffersCreated).toBe(0);
  });

  it('keeps the longest nakDelay a delay: a message failed with it is not delivered again', async () => {
    streams = await createStreams(nats.servers);
    await publishInputs(streams.js, 1, 1024);
    const counts = new JetStreamCounts();
    const run = worker(streams, await streams.js.consumers.get(INPUT, DURABLE), await invertKernel({ fail: () => true }), { counts, nakDelay: 9223372036854, idle: 1500 });
    pools.push(run.pool);
    const outcomes = await lastValueFrom(run.worker.pipe(toArray()));
    expect(outcomes.map((o) => [o.outcome, o.sequence, o.deliveryCount])).toEqual([['nak', 1, 1]]);
    expect(counts.toJSON()).toMatchObject({ pulled: 1, naked: 1, redelivered: 0 });
    expect(await consumerState(streams.jsm)).toMatchObject({ ackPending: 1, pending: 0 });
  });
});
