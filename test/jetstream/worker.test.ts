// fromJetStream and toJetStream in this process, against a real single-node nats-server: what
// values carry, how messages are settled (acked, nak'ed, dead-lettered), backpressure, in-progress
// acks, unsubscribing, and the duplicate result of a message processed twice.
import { headers } from '@nats-io/transport-node';
import { lastValueFrom, toArray } from 'rxjs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { HostArray, LanePool, host } from '../../src/index.js';
import type { JsMsg } from '@nats-io/jetstream';
import { DEAD_LETTER_HEADERS, JetStreamCounts, type FromJetStreamOptions, type JetStreamError, type JetStreamMessage, type JetStreamOutcome } from '../../src/operators/jetstream/index.js';
import { startNats, type NatsServers } from '../support/nats.js';
import { describeWithTool } from '../support/tools.js';
import { DEAD, DURABLE, INPUT, OUTPUT, checksum, connectStreams, consumerState, createStreams, input, publishInputs, readAll, until, verify, type Streams } from '../support/jetstream.js';
import { device, invertAndPublish, invertKernel, worker } from './pipeline.js';

const BYTES = 65536;
let nats: NatsServers;
let streams: Streams;
const pools: LanePool[] = [];

beforeEach(async () => {
  nats = await startNats();
});

afterEach(async () => {
  for (const pool of pools.splice(0)) pool.close();
  await streams?.close();
  await nats.stop();
});

const consumer = () => streams.js.consumers.get(INPUT, DURABLE);
const run = (observable: ReturnType<typeof worker>) => {
  pools.push(observable.pool);
  return lastValueFrom(observable.worker.pipe(toArray()));
};

describeWithTool('nats-server', 'fromJetStream', { timeout: 60_000 }, () => {
  it('gives each value its payload in pinned memory and its message metadata', async () => {
    streams = await createStreams(nats.servers);
    const h = headers();
    h.set('Frame-Kind', 'test');
    await streams.js.publish('frames.7', input(0, 1024), { headers: h });
    const seen: JetStreamMessage[] = [];
    const copies: Uint8Array[] = [];
    const invert = await invertKernel();
    const process = invertAndPublish(streams.js, invert);
    await run(worker(streams, await consumer(), invert, {
      process: (messages) => process(messages.pipe(host((w) => void (seen.push(w.value), copies.push(w.value.data.data.slice()))))),
    }));
    expect(seen).toHaveLength(1);
    const [m] = seen as [JetStreamMessage];
    expect({ stream: m.stream, consumer: m.consumer, sequence: m.sequence, deliveryCount: m.deliveryCount, subject: m.subject, size: m.size, redelivered: m.redelivered, msgID: m.msgID }).toEqual({
      stream: INPUT, consumer: DURABLE, sequence: 1, deliveryCount: 1, subject: 'frames.7', size: 1024, redelivered: false, msgID: `${INPUT}:1`,
    });
    expect(m.headers?.get('Frame-Kind')).toBe('test');
    expect(m.data).toBeInstanceOf(HostArray);
    expect(m.frame.length).toBe(BYTES);
    expect(copies[0]).toEqual(input(0, 1024));
    expect(m.timestampNanos).toBeGreaterThan(0);
  });

  it('acks every message once its result is accepted, leaving the consumer with nothing pending', async () => {
    streams = await createStreams(nats.servers);
    await publishInputs(streams.js, 100, BYTES);
    const counts = new JetStreamCounts();
    const outcomes = await run(worker(streams, await consumer(), await invertKernel(), { counts }));
    expect(outcomes.map((o) => o.outcome)).toEqual(Array(100).fill('acked'));
    expect(new Set(outcomes.map((o) => o.sequence)).size).toBe(100);
    expect(counts.toJSON()).toEqual({ pulled: 100, inFlight: 0, acked: 100, naked: 0, redelivered: 0, deadLettered: 0, duplicates: 0 });
    expect(await consumerState(streams.jsm)).toMatchObject({ ackPending: 0, pending: 0, ackFloor: 100 });
    expect(verify(await readAll(streams.js, OUTPUT), 100, BYTES)).toEqual([]);
  });

  it('dead-letters a message whose kernel fails on every delivery, after max_deliver, with its error; the others go through', async () => {
    streams = await createStreams(nats.servers, { maxDeliver: 3 });
    await publishInputs(streams.js, 20, BYTES);
    const poison = input(6, BYTES); // sequence 7
    const first = new Uint32Array(poison.buffer)[0];
    const counts = new JetStreamCounts();
    const outcomes = await run(worker(streams, await consumer(), await invertKernel({ fail: (x) => x[0] === first }), { counts }));
    const dead = outcomes.filter((o) => o.outcome === 'dead-letter');
    expect(dead.map((o) => [o.sequence, o.deliveryCount])).toEqual([[7, 3]]);
    expect(outcomes.filter((o) => o.outcome === 'nak').map((o) => [o.sequence, o.deliveryCount])).toEqual([[7, 1], [7, 2]]);
    expect(String((dead[0]!.error as Error).message)).toContain('poison frame');
    expect(counts.toJSON()).toMatchObject({ acked: 19, naked: 2, deadLettered: 1, redelivered: 2, inFlight: 0 });
    const [letter, ...more] = await readAll(streams.js, DEAD);
    expect(more).toEqual([]);
    expect(letter!.data).toEqual(poison);
    const stored = (await streams.jsm.streams.getMessage(DEAD, { seq: 1 }))!;
    expect(stored.header.get('Rxcuda-Sequence')).toBe('7');
    expect(stored.header.get('Rxcuda-Deliveries')).toBe('3');
    expect(stored.header.get('Rxcuda-Error')).toMatch(/^PipelineError: launch\(invert\) failed for value #\d+: poison frame/);
    expect(await consumerState(streams.jsm)).toMatchObject({ ackPending: 0, pending: 0 });
    const results = await readAll(streams.js, OUTPUT);
    expect(results.map((r) => r.source).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `${INPUT}:${i + 1}`).filter((s) => s !== `${INPUT}:7`).sort());
  });

  it('dead-letters a message whose decode fails on every delivery', async () => {
    streams = await createStreams(nats.servers, { maxDeliver: 2 });
    await publishInputs(streams.js, 5, BYTES);
    await streams.js.publish('frames.bad', new TextEncoder().encode('not a frame'));
    const counts = new JetStreamCounts();
    const outcomes = await run(worker(streams, await consumer(), await invertKernel(), {
      counts,
      decode: (payload, frame) => {
        if (payload.length % 4 !== 0) throw new RangeError(`a payload of ${payload.length} bytes is not words`);
        frame.set(payload);
      },
    }));
    expect(outcomes.filter((o) => o.outcome === 'dead-letter').map((o) => [o.sequence, String(o.error)])).toEqual([[6, 'PipelineError: decode failed for value #5: a payload of 11 bytes is not words']]);
    expect(counts.toJSON()).toMatchObject({ acked: 5, naked: 1, deadLettered: 1 });
  });

  it('dead-letters a message whose last delivery (max_deliver) a dead worker held: read from the stream by sequence, once though two workers hear of it', async () => {
    streams = await createStreams(nats.servers, { maxDeliver: 2, ackWait: 1000 });
    const h = headers();
    h.set('Frame-Kind', 'held');
    await streams.js.publish('frames.0', input(0, 1024), { headers: h, msgID: 'in-0' });
    // Another worker, on a connection of its own: its first delivery fails (nak), and it dies
    // holding the second, the last the consumer allows: the server delivers it no more.
    const doomed = await connectStreams(nats.servers);
    const other = await doomed.js.consumers.get(INPUT, DURABLE);
    const first = (await other.next({ expires: 5000 }))!;
    first.nak();
    const last = (await other.next({ expires: 5000 }))!;
    expect(last.info.deliveryCount).toBe(2);
    await doomed.close();
    const [a, b] = [new JetStreamCounts(), new JetStreamCounts()];
    const invert = await invertKernel();
    // Two workers hear the server's advisory, after ack_wait; idle for longer than ack_wait.
    const outcomes = await Promise.all([a, b].map(async (counts) => run(worker(streams, await consumer(), invert, { counts, idle: 3000 }))));
    const dead = outcomes.flat();
    expect(dead.map((o) => [o.outcome, o.sequence, o.subject, o.deliveryCount])).toEqual([['dead-letter', 1, 'frames.0', 2]]);
    expect((dead[0]!.error as JetStreamError).reason).toBe('max-deliveries');
    expect(a.deadLettered + b.deadLettered).toBe(1);
    expect([a.pulled, b.pulled]).toEqual([0, 0]);
    const letters = await readAll(streams.js, DEAD);
    expect(letters).toHaveLength(1);
    expect(new Uint8Array(letters[0]!.data)).toEqual(input(0, 1024));
    const letter = (await streams.jsm.streams.getMessage(DEAD, { seq: 1 }))!;
    expect([DEAD_LETTER_HEADERS.stream, DEAD_LETTER_HEADERS.sequence, DEAD_LETTER_HEADERS.subject, DEAD_LETTER_HEADERS.deliveries, 'Frame-Kind'].map((k) => letter.header.get(k))).toEqual([INPUT, '1', 'frames.0', '2', 'held']);
    expect(letter.header.get(DEAD_LETTER_HEADERS.error)).toBe(
      "JetStreamError: Message FRAMES #1 was delivered 2 times (the consumer's max_deliver) and never settled: the worker that held it last died, stopped or lost the server before acking it",
    );
    expect(await consumerState(streams.jsm)).toMatchObject({ ackPending: 0, pending: 0 });
  });

  it('never holds more messages than the pool’s in-flight bound: num_ack_pending on the server stays at or under it while a stage is slow', async () => {
    streams = await createStreams(nats.servers, { maxAckPending: 1000 });
    await publishInputs(streams.js, 24, BYTES);
    const pool = new LanePool(device, { lanes: 1, inFlight: 3 });
    const counts = new JetStreamCounts();
    const done = run(worker(streams, await consumer(), await invertKernel({ slowMs: 100 }), { pool, counts }));
    const seen: number[] = [];
    let finished = false;
    void done.then(() => (finished = true));
    while (!finished) {
      seen.push((await consumerState(streams.jsm)).ackPending);
      expect(counts.inFlight).toBeLessThanOrEqual(3);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    await done;
    expect(Math.max(...seen)).toBeLessThanOrEqual(3);
    expect(seen.filter((n) => n === 3).length).toBeGreaterThan(5); // the bound was reached, and held
    expect(pool.stats.maxInFlight).toBeLessThanOrEqual(3);
    expect(counts.acked).toBe(24);
  });

  it('sends in-progress acks for work that takes longer than ack_wait, so that nothing is redelivered meanwhile', async () => {
    streams = await createStreams(nats.servers, { ackWait: 1000 });
    await publishInputs(streams.js, 2, BYTES);
    const counts = new JetStreamCounts();
    await run(worker(streams, await consumer(), await invertKernel({ slowMs: 2500 }), { counts }));
    expect(counts.toJSON()).toMatchObject({ pulled: 2, acked: 2, redelivered: 0 });
    expect(await consumerState(streams.jsm)).toMatchObject({ ackPending: 0, redelivered: 0 });
  });

  it('stops pulling when unsubscribed, finishes and acks what it holds, and emits nothing more', async () => {
    streams = await createStreams(nats.servers);
    await publishInputs(streams.js, 60, BYTES);
    const counts = new JetStreamCounts();
    const { pool, worker: running } = worker(streams, await consumer(), await invertKernel({ slowMs: 20 }), { counts });
    pools.push(pool);
    const outcomes: JetStreamOutcome[] = [];
    const subscription = running.subscribe((o) => outcomes.push(o));
    await until(() => outcomes.length >= 10, 20_000, '10 messages settled');
    subscription.unsubscribe();
    const emitted = outcomes.length;
    await until(() => counts.inFlight === 0, 20_000, 'the messages held to be settled');
    expect(outcomes.length).toBe(emitted);
    expect(counts.acked + counts.naked).toBe(counts.pulled);
    expect(counts.acked).toBeLessThan(60);
    // On the server, nothing is held but what it gave back (nak'ed, waiting to be delivered again).
    await until(async () => (await consumerState(streams.jsm)).ackPending === counts.naked, 5_000, 'nothing held on the server');
    const rest = await run(worker(streams, await consumer(), await invertKernel()));
    expect(counts.acked + rest.filter((o) => o.outcome === 'acked').length).toBe(60);
    expect(verify(await readAll(streams.js, OUTPUT), 60, BYTES)).toEqual([]);
  });

  it('takes its frames from the pool: counted in pool.stats while it holds them, given back, and reused by the next worker on the pool', async () => {
    streams = await createStreams(nats.servers);
    await publishInputs(streams.js, 20, BYTES);
    const pool = new LanePool(device, { lanes: 1, inFlight: 2 });
    const inUse: number[] = [];
    // A host step alone: the frames are the only pooled memory the values take.
    const process: FromJetStreamOptions['process'] = (messages) => messages.pipe(host(() => void inUse.push(pool.stats.buffersInUse)));
    const invert = await invertKernel();
    await run(worker(streams, await consumer(), invert, { pool, process }));
    expect(inUse).toHaveLength(20);
    expect(Math.min(...inUse)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...inUse)).toBeLessThanOrEqual(2);
    expect(pool.stats.buffersInUse).toBe(0);
    const created = pool.stats.buffersCreated;
    expect(created).toBeGreaterThanOrEqual(1);
    expect(created).toBeLessThanOrEqual(2);
    await publishInputs(streams.js, 20, BYTES, 20);
    await run(worker(streams, await consumer(), invert, { pool, process }));
    expect(inUse).toHaveLength(40);
    expect(pool.stats).toMatchObject({ buffersInUse: 0, buffersCreated: created });
  });

  it('does not stop for `idle` while messages wait on the consumer, though none comes to it for longer', async () => {
    streams = await createStreams(nats.servers, { maxAckPending: 2 });
    await publishInputs(streams.js, 5, BYTES);
    // Another worker holds max_ack_pending messages: the server gives this one nothing meanwhile.
    const other = await (await consumer()).fetch({ max_messages: 2, expires: 5000 });
    const taken: JsMsg[] = [];
    for await (const m of other) taken.push(m);
    const counts = new JetStreamCounts();
    const outcomes: JetStreamOutcome[] = [];
    let finished = false;
    const done = run(worker(streams, await consumer(), await invertKernel(), { counts, idle: 300 }));
    void done.then((list) => ((finished = true), outcomes.push(...list)));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(finished).toBe(false);
    expect(counts.pulled).toBe(0);
    for (const m of taken) m.ack();
    await done;
    expect(outcomes.map((o) => [o.outcome, o.sequence]).sort()).toEqual([['acked', 3], ['acked', 4], ['acked', 5]]);
    expect(await consumerState(streams.jsm)).toMatchObject({ ackPending: 0, pending: 0, ackFloor: 5 });
  });

  it('stops when its signal is aborted, and completes once what it holds is acked', async () => {
    streams = await createStreams(nats.servers);
    await publishInputs(streams.js, 40, BYTES);
    const abort = new AbortController();
    const counts = new JetStreamCounts();
    const invert = await invertKernel({ slowMs: 20 });
    const outcomes = await run(worker(streams, await consumer(), invert, {
      counts,
      signal: abort.signal,
      idle: 60_000,
      process: (messages) => invertAndPublish(streams.js, invert)(messages).pipe(host(() => void (counts.acked >= 5 && abort.abort()))),
    }));
    expect(outcomes.length).toBe(counts.pulled);
    expect(counts.inFlight).toBe(0);
    expect(counts.acked).toBeLessThan(40);
  });
});

describeWithTool('nats-server', 'toJetStream', { timeout: 60_000 }, () => {
  it('publishes the result of a message processed twice once: the server drops the second as a duplicate', async () => {
    streams = await createStreams(nats.servers);
    await publishInputs(streams.js, 3, BYTES);
    // #2's result is there already, as if an earlier delivery had published it and its worker died before the ack.
    const earlier = new Uint32Array(input(1, BYTES).buffer).map((x) => ~x >>> 0);
    const h = headers();
    h.set('Checksum', String(checksum(input(1, BYTES))));
    await streams.js.publish('results.frames', new Uint8Array(earlier.buffer), { msgID: `${INPUT}:2`, headers: h });
    const counts = new JetStreamCounts();
    const outcomes = await run(worker(streams, await consumer(), await invertKernel(), { counts }));
    expect(outcomes.map((o) => o.outcome)).toEqual(['acked', 'acked', 'acked']);
    expect(counts.duplicates).toBe(1);
    const results = await readAll(streams.js, OUTPUT);
    expect(results.map((r) => r.source)).toEqual([`${INPUT}:2`, `${INPUT}:1`, `${INPUT}:3`]);
    expect(verify(results, 3, BYTES)).toEqual([]);
  });
});
