// The in-process worker of the JetStream tests, on the host device: each frame of u32 words is
// inverted by a kernel and published to results.frames; `fail` makes chosen messages fail.
import { headers } from '@nats-io/transport-node';
import type { JetStreamClient } from '@nats-io/jetstream';
import { Device, LanePool, download, launch, upload, type Kernel } from '../../src/index.js';
import { fromJetStream, toJetStream, type FromJetStreamOptions, type JetStreamMessage } from '../../src/operators/jetstream/index.js';
import { checksum, type Streams } from '../support/jetstream.js';

export const device = Device.host();

/** invert(bytes, words): a plain pointer, so that the frame's u8 memory goes in as it is. */
export async function invertKernel(options: { slowMs?: number; fail?: (words: Uint32Array) => boolean } = {}): Promise<Kernel<['ptr', 'u32']>> {
  const module = await device.compile(`extern "C" __global__ void invert(unsigned* x, unsigned n) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = ~x[i];
  }`);
  return module.kernel('invert', ['ptr', 'u32'], {
    cpu: async (_, [bytes, n]) => {
      const x = new Uint32Array((bytes as Uint8Array).buffer, (bytes as Uint8Array).byteOffset, n);
      if (options.slowMs) await new Promise((resolve) => setTimeout(resolve, options.slowMs));
      if (options.fail?.(x)) throw new Error(`poison frame (first word ${x[0]})`);
      for (let i = 0; i < n; i++) x[i] = ~x[i]! >>> 0;
    },
  });
}

/** The `process` of fromJetStream: upload, invert, download, publish with the input's checksum. */
export function invertAndPublish(js: JetStreamClient, invert: Kernel<['ptr', 'u32']>): FromJetStreamOptions['process'] {
  return (messages) =>
    messages.pipe(
      upload((m: JetStreamMessage) => m.data),
      launch(invert, (w) => ({ config: { grid: 16, block: 256 }, args: [w.buffers.input, w.value.size / 4] })),
      download((w) => w.buffers.input, 'out'),
      toJetStream(js, 'results.frames', (w) => w.results.out, {
        headers: (w) => {
          const h = headers();
          // The result is the inverted input: its checksum is the input's, recomputed from it.
          h.set('Checksum', String(checksum(new Uint8Array(w.results.out.map((x) => ~x >>> 0).buffer))));
          return h;
        },
      }),
    ) as never;
}

/** A worker on `pool` (its own, made here when not given), stopping when idle for 500 ms. */
export function worker(streams: Pick<Streams, 'js' | 'nc'>, consumer: Parameters<typeof fromJetStream>[0], invert: Kernel<['ptr', 'u32']>, options: Partial<FromJetStreamOptions> & { pool?: LanePool } = {}) {
  const { pool = new LanePool(device, { lanes: 2 }), ...rest } = options;
  const { js, nc } = streams;
  return {
    pool,
    worker: fromJetStream(consumer, pool, { frameBytes: 65536, idle: 500, nakDelay: 50, deadLetter: { jetstream: js, subject: 'dead.frames', connection: nc }, process: invertAndPublish(js, invert), ...rest }),
  };
}
