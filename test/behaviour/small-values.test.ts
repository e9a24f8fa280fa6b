// Small values at scale: 10^5 frames of 1 KiB through eager and replayed pipelines, every result
// exact and in the order `download` documents (a lane's values in their order; lanes may overtake
// one another), and memory flat over 10^6 values (heap and RSS after 10^5 and after 10^6).
import { beforeAll, expect, it } from 'vitest';
import { count, lastValueFrom, map, pipe, range, tap } from 'rxjs';
import { LanePool, download, framesFrom, launch, onStreams, replay, upload, type Device } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { gc } from '../support/gc.js';
import { testKernels } from '../support/kernels.js';

const N = 256; // 1 KiB of u32 per frame
const FRAMES = 100_000;
const config = { grid: 1, block: N };
const frame = (i: number) => Uint32Array.from({ length: N }, (_, j) => (i * 2654435761 + j * 40503) >>> 0);

describeBackends('small values at scale', (getDevice) => {
  let device: Device;
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  beforeAll(async () => {
    device = getDevice();
    kernels = await testKernels(device);
  });

  /**
   * Runs FRAMES frames through a pipeline (eager or replayed; its launch's arguments given once, or
   * made by one function for each value) and checks each result and the order.
   */
  async function throughPipeline(replayed: boolean, givenOnce: boolean) {
    const work = pipe(
      upload((data: Uint32Array) => data),
      givenOnce
        ? launch(kernels.addU32, config, [(w) => w.buffers.input, 5, N])
        : launch(kernels.addU32, (w) => ({ config, args: [w.buffers.input, 5, N] })),
      download((w) => w.buffers.input, 'out'),
    );
    const pool = new LanePool(device, { lanes: 4, inFlight: 8 });
    const seen = new Uint8Array(FRAMES);
    const lastOnLane = new Map<number, number>();
    const wrong: number[] = [];
    const outOfOrder: string[] = [];
    try {
      const done = await lastValueFrom(
        range(0, FRAMES).pipe(
          map(frame),
          onStreams(pool),
          replayed ? replay(work) : work,
          tap((w) => {
            const expected = frame(w.index).map((v) => (v + 5) >>> 0);
            const out = w.results.out;
            for (let j = 0; j < N; j++) if (out[j] !== expected[j]) {
              if (wrong.length < 10) wrong.push(w.index);
              break;
            }
            seen[w.index]!++;
            const last = lastOnLane.get(w.lane.index) ?? -1;
            if (w.index <= last && outOfOrder.length < 10) outOfOrder.push(`${w.index} after ${last} on lane ${w.lane.index}`);
            lastOnLane.set(w.lane.index, w.index);
          }),
          count(),
        ),
      );
      expect(done).toBe(FRAMES);
    } finally {
      pool.close();
    }
    expect(wrong, 'frames with a wrong result').toEqual([]);
    expect(outOfOrder, "values that overtook an earlier one of their lane").toEqual([]);
    expect(seen.every((n) => n === 1), 'every frame came back once').toBe(true);
  }

  for (const givenOnce of [false, true]) {
    const form = givenOnce ? 'arguments given once' : 'one function per launch';
    it(`gives 10^5 small frames through an eager pipeline, every result exact, each lane in order (${form})`, async () => {
      await throughPipeline(false, givenOnce);
    });

    it(`gives 10^5 small frames through a replayed pipeline, every result exact, each lane in order (${form})`, async () => {
      await throughPipeline(true, givenOnce);
    });
  }

  it('keeps memory flat over 10^6 small values: heap and RSS after 10^5 and 10^6 differ by little', async () => {
    const pool = new LanePool(device, { lanes: 4, inFlight: 8 });
    let checksum = 0;
    const run = (values: number) =>
      lastValueFrom(
        framesFrom(pool, { dtype: 'u32', length: N, count: values }, (f, i) => void (f.data[0] = i)).pipe(
          upload((f) => f),
          launch(kernels.invert, config, [(w) => w.buffers.input, N]),
          download((w) => w.buffers.input, 'out', { lend: 'release' }),
          tap((w) => {
            checksum = (checksum + (~w.results.out.data[0]! >>> 0)) % 2 ** 32;
            w.results.out.release();
          }),
          count(),
        ),
      );
    const settled = async () => {
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((r) => setTimeout(r, 20));
      }
      const { heapUsed, rss, external, arrayBuffers } = process.memoryUsage();
      return { heapMiB: heapUsed / 2 ** 20, rssMiB: rss / 2 ** 20, externalMiB: (external + arrayBuffers) / 2 ** 20 };
    };
    try {
      expect(await run(100_000)).toBe(100_000);
      const at1e5 = await settled();
      expect(await run(900_000)).toBe(900_000);
      const at1e6 = await settled();
      console.log(`memory over 10^6 small values on ${device.kind}: ${JSON.stringify({ at1e5, at1e6, buffers: pool.stats })}`);
      // A leak of 8 bytes a value is 7 MiB over these 9 × 10^5 values; of 32 native bytes, 27 MiB.
      expect(at1e6.heapMiB - at1e5.heapMiB).toBeLessThan(4);
      expect(at1e6.rssMiB - at1e5.rssMiB).toBeLessThan(24);
      expect(pool.stats.buffersInUse).toBe(0);
    } finally {
      pool.close();
    }
    // Each run's frames are numbered from 0, and each result read back is its frame's number.
    const sum = (n: number) => (n * (n - 1)) / 2;
    expect(checksum).toBe((sum(100_000) + sum(900_000)) % 2 ** 32);
  });
});
