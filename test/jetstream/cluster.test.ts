// Workers on a 3-node cluster whose streams have 3 replicas: the node leading the consumer killed
// mid-run, the workers reconnect to the others and go on, and no input and no result is lost or
// doubled.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startNats, type NatsServers } from '../support/nats.js';
import { describeWithTool } from '../support/tools.js';
import { DURABLE, INPUT, OUTPUT, consumerState, createStreams, publishInputs, readAll, startWorker, until, verify, type Streams, type WorkerProcess } from '../support/jetstream.js';

const BYTES = 64 * 1024;
let nats: NatsServers;
let streams: Streams;
let workers: WorkerProcess[] = [];

beforeEach(async () => {
  nats = await startNats({ nodes: 3 });
});

afterEach(async () => {
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.exited));
  workers = [];
  await streams?.close();
  await nats.stop();
});

const acked = () => workers.reduce((sum, w) => sum + (w.last?.counts?.acked ?? 0), 0);

describeWithTool('nats-server', 'fromJetStream on a 3-node cluster (streams of 3 replicas)', { timeout: 240_000 }, () => {
  it('goes on when the node leading the consumer is killed mid-run: the workers reconnect, nothing is lost, results stay exactly once', async () => {
    const COUNT = 2000;
    // While the cluster elects new leaders, publishes fail and their messages are delivered again:
    // enough deliveries that none is dead-lettered for it.
    streams = await createStreams(nats.servers, { replicas: 3, ackWait: 5000, maxDeliver: 100 });
    await publishInputs(streams.js, COUNT, BYTES);
    workers = [0, 1].map(() => startWorker({ servers: nats.servers, lanes: 2, frameBytes: BYTES, idle: 8000 }));
    await until(() => acked() >= COUNT / 4, 120_000, 'a quarter of the messages acked');
    // The node that leads the consumer: its pull requests die with it, unanswered, and the
    // cluster elects another leader (seconds, longer under load) before any worker gets a message.
    const leader = (await streams.jsm.consumers.info(INPUT, DURABLE)).cluster?.leader;
    const killed = nats.nodes.find((node) => node.name === leader)!;
    expect(killed, `the consumer's leader (${leader}) among the nodes`).toBeDefined();
    await killed.kill();
    const killedAt = performance.now();
    const ackedAtKill = acked();
    await until(() => acked() > ackedAtKill + 50, 60_000, 'the workers to go on after the node died');
    const resumed = performance.now() - killedAt;
    const ends = await Promise.all(workers.map((w) => w.exited));
    expect(ends.map((e) => e.code), workers.map((w) => w.stderr.join('')).join('\n')).toEqual([0, 0]);
    expect(await consumerState(streams.jsm)).toMatchObject({ ackPending: 0, pending: 0 });
    const results = await readAll(streams.js, OUTPUT);
    expect(results).toHaveLength(COUNT);
    expect(verify(results, COUNT, BYTES)).toEqual([]);
    const counts = workers.map((w) => w.last!.counts!);
    console.log(`cluster: node ${killed.name} (the consumer's leader) killed after ${ackedAtKill} acks; 50 more acked ${resumed.toFixed(0)} ms later; per worker ${JSON.stringify(counts)}`);
  });
});
