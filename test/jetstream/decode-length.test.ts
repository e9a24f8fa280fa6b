// fromJetStream's decode: one that returns nothing stands for the payload's length, which the
// frame must hold; a payload larger than the frame is then a failure of decode, settled as one
// (nak'ed, and dead-lettered on its last delivery), and the worker goes on and ends.
import { lastValueFrom, toArray } from 'rxjs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { LanePool } from '../../src/index.js';
import { JetStreamCounts } from '../../src/operators/jetstream/index.js';
import { startNats, type NatsServers } from '../support/nats.js';
import { describeWithTool } from '../support/tools.js';
import { DURABLE, INPUT, createStreams, publishInputs, type Streams } from '../support/jetstream.js';
import { invertKernel, worker } from './pipeline.js';

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

describeWithTool('nats-server', 'fromJetStream', { timeout: 60_000 }, () => {
  it('dead-letters a message whose decode returned nothing for a payload larger than the frame, and ends', async () => {
    streams = await createStreams(nats.servers, { maxDeliver: 2 });
    await publishInputs(streams.js, 3, BYTES);
    await streams.js.publish('frames.large', new Uint8Array(2 * BYTES));
    const counts = new JetStreamCounts();
    const run = worker(streams, await streams.js.consumers.get(INPUT, DURABLE), await invertKernel(), {
      counts,
      decode: (payload, frame) => void frame.set(payload.subarray(0, frame.length)),
    });
    pools.push(run.pool);
    const outcomes = await lastValueFrom(run.worker.pipe(toArray()));
    expect(outcomes.filter((o) => o.outcome === 'dead-letter').map((o) => [o.sequence, String(o.error)])).toEqual([
      [4, `PipelineError: decode failed for value #3: Expected \`decode\` to return the bytes it wrote, 0..${BYTES}, got undefined (the payload's length, ${2 * BYTES})`],
    ]);
    expect(counts.toJSON()).toMatchObject({ acked: 3, naked: 1, deadLettered: 1, inFlight: 0 });
  });
});
