// Many worker processes on one durable consumer of a real nats-server: every input processed and
// acked, every result in the output stream exactly once; a worker killed mid-run loses nothing;
// a worker told to stop (SIGTERM) finishes what it holds and exits by itself.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startNats, type NatsServers } from '../support/nats.js';
import { describeWithTool } from '../support/tools.js';
import { OUTPUT, consumerState, createStreams, publishInputs, readAll, startWorker, until, verify, type Streams, type WorkerProcess } from '../support/jetstream.js';

const BYTES = 64 * 1024;
let nats: NatsServers;
let streams: Streams;
let workers: WorkerProcess[] = [];

beforeEach(async () => {
  nats = await startNats();
});

afterEach(async () => {
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.exited));
  workers = [];
  await streams?.close();
  await nats.stop();
});

const acked = () => workers.reduce((sum, w) => sum + (w.last?.counts?.acked ?? 0), 0);

describeWithTool('nats-server', 'fromJetStream workers (processes on one durable consumer)', { timeout: 240_000 }, () => {
  it('three workers of 2 lanes process 10^4 messages of 64 KiB: every input acked, every result once and right', async () => {
    const COUNT = 10_000;
    streams = await createStreams(nats.servers, { ackWait: 30_000 });
    await publishInputs(streams.js, COUNT, BYTES);
    const start = performance.now();
    workers = [0, 1, 2].map(() => startWorker({ servers: nats.servers, lanes: 2, frameBytes: BYTES, idle: 1000 }));
    const ends = await Promise.all(workers.map((w) => w.exited));
    const seconds = (performance.now() - start) / 1000;
    expect(ends.map((e) => e.code), workers.map((w) => w.stderr.join('')).join('\n')).toEqual([0, 0, 0]);
    expect(workers.map((w) => w.reports.at(-1)?.done)).toEqual(['complete', 'complete', 'complete']);
    expect(acked()).toBe(COUNT);
    // Each worker took a share: the server spread the messages.
    for (const w of workers) expect(w.last!.counts!.acked).toBeGreaterThan(0);
    expect(await consumerState(streams.jsm)).toMatchObject({ ackPending: 0, pending: 0 });
    const results = await readAll(streams.js, OUTPUT);
    expect(results).toHaveLength(COUNT);
    expect(verify(results, COUNT, BYTES)).toEqual([]);
    console.log(`3 workers: ${COUNT} messages of 64 KiB in ${seconds.toFixed(1)} s (${(COUNT / seconds).toFixed(0)} messages/s), per worker ${workers.map((w) => w.last!.counts!.acked).join(' / ')}`);
  });

  it('a worker killed with SIGKILL mid-run loses nothing: the others finish its messages after ack_wait, results stay exactly once', async () => {
    const COUNT = 3000;
    const ACK_WAIT = 2000;
    streams = await createStreams(nats.servers, { ackWait: ACK_WAIT });
    await publishInputs(streams.js, COUNT, BYTES);
    // Idle for longer than ack_wait: the survivors wait for the victim's messages to come back.
    workers = [0, 1, 2].map(() => startWorker({ servers: nats.servers, lanes: 2, frameBytes: BYTES, idle: ACK_WAIT + 3000 }));
    const [victim, ...survivors] = workers as [WorkerProcess, ...WorkerProcess[]];
    await until(() => acked() >= COUNT / 4, 60_000, 'a quarter of the messages acked');
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect((await victim.exited).signal).toBe('SIGKILL');
    const ends = await Promise.all(survivors.map((w) => w.exited));
    expect(ends.map((e) => e.code), survivors.map((w) => w.stderr.join('')).join('\n')).toEqual([0, 0]);
    expect(await consumerState(streams.jsm)).toMatchObject({ ackPending: 0, pending: 0 });
    const results = await readAll(streams.js, OUTPUT);
    expect(results).toHaveLength(COUNT);
    expect(verify(results, COUNT, BYTES)).toEqual([]);
    // Recovery: from the kill until the survivors acked the last of the messages the victim held
    // (those they got on a later delivery).
    const recovered = survivors.flatMap((w) => [...w.again.values()]);
    const recovery = Math.max(...recovered) - killedAt;
    console.log(`SIGKILL: ${recovered.length} messages the victim held were redelivered; recovered ${recovery.toFixed(0)} ms after the kill (ack_wait ${ACK_WAIT} ms)`);
    expect(recovered.length).toBeGreaterThan(0);
    expect(recovery).toBeLessThan(ACK_WAIT + 5000);
  });

  it('a worker sent SIGTERM stops pulling, acks what it holds, drains and exits by itself; what it pulled is acked or redelivered', async () => {
    const COUNT = 400;
    streams = await createStreams(nats.servers, { ackWait: 30_000 });
    await publishInputs(streams.js, COUNT, BYTES);
    const worker = startWorker({ servers: nats.servers, lanes: 2, inFlight: 6, frameBytes: BYTES, slowMs: 50 });
    workers = [worker];
    await until(() => acked() >= 40, 60_000, '40 messages acked');
    worker.child.kill('SIGTERM');
    const signalled = performance.now();
    const end = await worker.exited;
    const took = performance.now() - signalled;
    expect(end).toEqual({ code: 0, signal: null });
    expect(worker.reports.at(-1)?.done).toBe('complete');
    console.log(`SIGTERM: exited by itself ${took.toFixed(0)} ms after the signal, counts ${JSON.stringify(worker.last!.counts)}`);
    expect(took).toBeLessThan(10_000);
    const counts = worker.last!.counts!;
    expect(counts.inFlight).toBe(0);
    expect(counts.acked! + counts.naked!).toBe(counts.pulled);
    expect(counts.acked).toBeLessThan(COUNT);
    // Nothing it pulled is held any more: a second worker gets the rest, and every result is there once.
    expect((await consumerState(streams.jsm)).ackPending).toBe(counts.naked); // given back, waiting to be delivered again
    const second = startWorker({ servers: nats.servers, lanes: 2, frameBytes: BYTES, idle: 1000 });
    workers.push(second);
    expect((await second.exited).code).toBe(0);
    expect(counts.acked! + second.last!.counts!.acked!).toBe(COUNT);
    const results = await readAll(streams.js, OUTPUT);
    expect(verify(results, COUNT, BYTES)).toEqual([]);
  });
});
