// Many worker processes on one durable consumer of a real nats-server: every input processed and
// acked, every result in the output stream exactly once; a worker killed mid-run loses nothing,
// not even the poison message it held on its last delivery; a worker told to stop (SIGTERM)
// finishes what it holds and exits by itself; and workers killed at random with a server restart
// between them leave every message one result or one dead letter.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startNats, subscribers, type NatsServers } from '../support/nats.js';
import { describeWithTool } from '../support/tools.js';
import { DEAD, DURABLE, INPUT, OUTPUT, consumerState, createStreams, publishInputs, readAll, startWorker, until, verify, type Streams, type WorkerProcess } from '../support/jetstream.js';

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
  it('three workers of 2 lanes process 3000 messages of 64 KiB: every input acked, every result once and right', async () => {
    const COUNT = 3000;
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
    const COUNT = 1500;
    const ACK_WAIT = 2000;
    streams = await createStreams(nats.servers, { ackWait: ACK_WAIT });
    await publishInputs(streams.js, COUNT, BYTES);
    // Idle for longer than ack_wait: the survivors wait for the victim's messages to come back. The
    // victim keeps 16 values in flight, so that it holds some whenever the kill comes (with the
    // default of 4 it held 2 to 4, and now and then none, between two pulls).
    workers = [0, 1, 2].map((i) => startWorker({ servers: nats.servers, lanes: 2, ...(i === 0 ? { inFlight: 16 } : {}), frameBytes: BYTES, idle: ACK_WAIT + 3000 }));
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

  it('a poison message whose last delivery (max_deliver) a worker held when killed with SIGKILL is dead-lettered once by the workers left', async () => {
    const ACK_WAIT = 1500;
    streams = await createStreams(nats.servers, { ackWait: ACK_WAIT, maxDeliver: 2 });
    await publishInputs(streams.js, 1, BYTES); // sequence 1, the poison
    const victim = startWorker({ servers: nats.servers, lanes: 2, frameBytes: BYTES, nakDelay: 50, poison: [1], holdAt: 2 });
    workers = [victim];
    await until(() => victim.reports.some((r) => r.holding?.join() === '1,2'), 60_000, 'the victim to hold the poison on its last delivery');
    const survivors = [0, 1].map(() => startWorker({ servers: nats.servers, lanes: 2, frameBytes: BYTES, idle: ACK_WAIT + 3000 }));
    workers.push(...survivors);
    const advisory = `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${INPUT}.${DURABLE}`;
    await until(async () => (await subscribers(nats.nodes[0]!, advisory)) === 3, 60_000, 'the three workers to listen to the advisory');
    victim.child.kill('SIGKILL');
    expect((await victim.exited).signal).toBe('SIGKILL');
    await publishInputs(streams.js, 20, BYTES, 1);
    const ends = await Promise.all(survivors.map((w) => w.exited));
    expect(ends.map((e) => e.code), survivors.map((w) => w.stderr.join('')).join('\n')).toEqual([0, 0]);
    // Read from the stream by sequence and published by both, stored once.
    expect(survivors.flatMap((w) => [...w.dead])).toEqual([1]);
    expect(survivors.flatMap((w) => [...w.advised])).toEqual([1]);
    const letters = await readAll(streams.js, DEAD);
    expect(letters.map((l) => l.source)).toEqual([`${INPUT}:1:dead-letter`]);
    const letter = (await streams.jsm.streams.getMessage(DEAD, { seq: 1 }))!;
    expect(['Rxcuda-Sequence', 'Rxcuda-Subject', 'Rxcuda-Deliveries'].map((k) => letter.header.get(k))).toEqual(['1', 'frames.0', '2']);
    expect(letter.header.get('Rxcuda-Error')).toMatch(/^JetStreamError: Message FRAMES #1 was delivered 2 times \(the consumer's max_deliver\) and never settled/);
    expect(new Uint8Array(letter.data)).toEqual(new Uint8Array(letters[0]!.data));
    expect(await consumerState(streams.jsm)).toMatchObject({ ackPending: 0, pending: 0 });
    expect(verify(await readAll(streams.js, OUTPUT), 21, BYTES)).toEqual([`${INPUT}:1: no result`]);
  });

  it('workers killed at random (SIGKILL) and a server restart: every message has exactly one result, or (a poison) exactly one dead letter', async () => {
    const COUNT = 1500;
    const SIZE = 16 * 1024;
    const ACK_WAIT = 1500;
    // Every 100th message fails on every delivery; the odd ones of them are held for ever on their
    // last delivery, until their worker is killed: the server's advisory is all that names them
    // then. Room in max_deliver for the deliveries the kills (one each) and the restart (a
    // publish that failed meanwhile) take from the others.
    const MAX_DELIVER = 8;
    const poison = Array.from({ length: COUNT / 100 }, (_, i) => (i + 1) * 100);
    const held = poison.filter((_, i) => i % 2 === 0);
    streams = await createStreams(nats.servers, { ackWait: ACK_WAIT, maxDeliver: MAX_DELIVER, storage: 'file' });
    await publishInputs(streams.js, COUNT, SIZE);
    const settings = { servers: nats.servers, lanes: 2, frameBytes: SIZE, idle: ACK_WAIT + 4000, nakDelay: 50, slowMs: 2, poison, held, holdAt: MAX_DELIVER };
    workers = [0, 1, 2].map(() => startWorker(settings));
    const live = () => workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
    const seed = Date.now() % 2 ** 31;
    let state = seed;
    const random = () => ((state = (Math.imul(state, 48271) >>> 0) % 2147483647) / 2147483647);
    const events: string[] = [];
    // A worker that holds a poison for ever is killed (and replaced): its places come back.
    // The server's max-deliveries advisory for what a killed worker held is a core NATS message,
    // sent once, ack_wait later: it is lost where no worker is connected then (docs/jetstream.md
    // says so). So a kill comes only while another worker that has run is alive, and no other kill
    // comes until its advisory was due: a worker hears each advisory.
    let holders = 0;
    let lastKill = 0;
    const mayKill = (w: (typeof workers)[number]) =>
      Date.now() - lastKill > ACK_WAIT + 1000 && live().some((o) => o !== w && o.reports.length > 0);
    const kill = async (w: (typeof workers)[number]) => {
      w.child.kill('SIGKILL');
      lastKill = Date.now();
      await w.exited;
      workers.push(startWorker(settings));
    };
    const sweep = async () => {
      for (const w of live())
        if (w.reports.some((r) => r.holding) && mayKill(w)) {
          await kill(w);
          holders++;
        }
    };
    for (const [share, event] of [[0.05, 'restart'], [0.35, 'kill'], [0.55, 'kill'], [0.75, 'kill']] as const) {
      await until(async () => (await sweep(), acked() >= COUNT * share), 120_000, `${share * 100}% of the messages acked`, 250);
      if (event === 'restart') {
        // An advisory due while the server is down, or while every worker reconnects, is lost
        // too. The restart comes early, before any poison's last delivery, and after any kill's
        // advisory was due; the kills wait until the workers are back.
        await until(async () => Date.now() - lastKill > ACK_WAIT + 2000, 60_000, 'no advisory due', 250);
        await nats.nodes[0]!.stop();
        await nats.nodes[0]!.restart();
        events.push(`restart at ${acked()}`);
        await new Promise((resolve) => setTimeout(resolve, 3000)); // reconnected (within a second or two)
        continue;
      }
      const running = live();
      const victim = running[Math.floor(random() * running.length)]!;
      await until(async () => (await sweep(), mayKill(victim) || victim.child.exitCode !== null || victim.child.signalCode !== null), 60_000, 'a kill whose advisory a worker hears', 250);
      if (victim.child.exitCode !== null || victim.child.signalCode !== null) continue; // the sweep took it
      await kill(victim);
      events.push(`kill of worker ${workers.indexOf(victim)} at ${acked()}`);
    }
    const dead = () => new Set(workers.flatMap((w) => [...w.dead]));
    await until(async () => (await sweep(), poison.every((s) => dead().has(s))), 120_000, 'every poison dead-lettered', 250);
    events.push(`${holders} kills of workers holding a poison`);
    const survivors = live();
    const ends = await Promise.all(survivors.map((w) => w.exited));
    expect(ends.map((e) => e.code), survivors.map((w) => w.stderr.join('')).join('\n')).toEqual(survivors.map(() => 0));
    expect(await consumerState(streams.jsm)).toMatchObject({ ackPending: 0, pending: 0 });
    // Counted by sequence: a result, or a dead letter for a poison, exactly once each.
    const results = await readAll(streams.js, OUTPUT);
    const letters = await readAll(streams.js, DEAD);
    const tally = (sources: string[], suffix: string) => {
      const n = new Map<number, number>();
      for (const source of sources) {
        const sequence = Number(source.slice(`${INPUT}:`.length, source.length - suffix.length));
        n.set(sequence, (n.get(sequence) ?? 0) + 1);
      }
      return n;
    };
    const resultsOf = tally(results.map((r) => r.source), '');
    const lettersOf = tally(letters.map((l) => l.source), ':dead-letter');
    const wrong: string[] = [];
    for (let sequence = 1; sequence <= COUNT; sequence++) {
      const expected = poison.includes(sequence) ? [0, 1] : [1, 0];
      const got = [resultsOf.get(sequence) ?? 0, lettersOf.get(sequence) ?? 0];
      if (got.join() !== expected.join()) wrong.push(`#${sequence}: ${got[0]} results, ${got[1]} dead letters`);
    }
    expect(wrong).toEqual([]);
    expect(results.length + letters.length).toBe(COUNT);
    expect(verify(results, COUNT, SIZE)).toEqual(poison.map((s) => `${INPUT}:${s}: no result`));
    // The held poisons reach their dead letter only through the advisory. Another poison does too
    // when a random kill takes the worker that held its last delivery: the advisory is then all
    // that names it. Each is named once.
    const viaAdvisory = workers.flatMap((w) => [...w.advised]).sort((a, b) => a - b);
    expect(new Set(viaAdvisory).size).toBe(viaAdvisory.length);
    expect(held.filter((s) => !viaAdvisory.includes(s))).toEqual([]);
    expect(viaAdvisory.filter((s) => !poison.includes(s))).toEqual([]);
    console.log(`chaos (seed ${seed}): ${events.join(', ')}; ${workers.length} workers in all; ${letters.length} dead letters (${viaAdvisory.length} from the advisory); redelivered ${workers.reduce((n, w) => n + (w.last?.counts?.redelivered ?? 0), 0)}`);
  });
});
