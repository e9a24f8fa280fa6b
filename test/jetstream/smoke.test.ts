import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { Device, LanePool, download, launch, upload, host } from '../../src/index.js';
import { JetStreamCounts, fromJetStream, toJetStream } from '../../src/operators/jetstream/index.js';
import { startNats, type NatsServers } from '../support/nats.js';
import { createStreams, publishInputs, readAll, verify, checksum, consumerState, INPUT, DURABLE, type Streams } from '../support/jetstream.js';
import { headers } from '@nats-io/transport-node';
import { testKernels } from '../support/kernels.js';

let nats: NatsServers;
let s: Streams;
beforeAll(async () => {
  nats = await startNats();
  s = await createStreams(nats.servers, { ackWait: 2000, maxDeliver: 3 });
});
afterAll(async () => {
  await s?.close();
  await nats?.stop();
});

describe('smoke', () => {
  it('runs', async () => {
    const N = 200, B = 65536;
    let t = performance.now();
    await publishInputs(s.js, N, B);
    console.log('publish', performance.now() - t);
    const device = Device.host();
    const { invert } = await testKernels(device);
    const pool = new LanePool(device, { lanes: 2 });
    const counts = new JetStreamCounts();
    const consumer = await s.js.consumers.get(INPUT, DURABLE);
    const sums = new Map();
    t = performance.now();
    const out = await lastValueFrom(fromJetStream(consumer, pool, {
      frameBytes: B, counts, idle: 500, deadLetter: { jetstream: s.js, subject: 'dead.frames' },
      process: (m) => m.pipe(
        upload((m) => new Uint32Array(m.data.data.buffer, m.data.data.byteOffset, m.size / 4)),
        launch(invert, (w) => ({ config: { grid: 16, block: 256 }, args: [w.buffers.input, w.value.size / 4] })),
        host((w) => void sums.set(w.value, checksum(w.value.data.data))),
        download((w) => w.buffers.input, 'out'),
        toJetStream(s.js, 'results.frames', (w) => w.results.out, { headers: (w) => { const h = headers(); h.set('Checksum', String(sums.get(w.value))); return h; } }),
      ),
    }).pipe(toArray()));
    console.log('run', performance.now() - t, counts.toJSON(), pool.stats);
    expect(out.length).toBe(N);
    const results = await readAll(s.js, 'RESULTS');
    expect(verify(results, N, B)).toEqual([]);
    console.log(await consumerState(s.jsm));
    pool.close();
  });
});
