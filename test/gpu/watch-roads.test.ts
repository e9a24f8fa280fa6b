// The two roads a GPU's pipeline values can be watched by (rxcuda/internal setWatchRoad): an event
// recorded behind each value, which the watcher queries, and a word of the lane's that the stream
// writes behind each value, which the watcher reads. Both give every value its results, each
// lane's values in order, and a watch that gives up falls back to a completion point.
import { afterEach, beforeAll, expect, it } from 'vitest';
import { lastValueFrom, tap, toArray } from 'rxjs';
import { Device, LanePool, download, framesFrom, launch, upload } from '../../src/index.js';
import { setWatchRoad, type WatchRoad } from '../../src/internal.js';
import { describeGpu } from '../support/gpu.js';
import { testKernels } from '../support/kernels.js';
import { lanePools } from '../support/streams.js';

const N = 1024;
const pattern = (i: number) => Uint32Array.from({ length: N }, (_, j) => (i * 7919 + j * 31) >>> 0);

describeGpu('values watched through events and through words', () => {
  let device: Device;
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  beforeAll(async () => {
    device = Device.default();
    kernels = await testKernels(device);
  });
  afterEach(() => setWatchRoad('events'));
  const newPool = lanePools(() => device, afterEach);

  /** Frames through a delay of `ns` and invert on `pool`: each value's index and whether its result was exact. */
  const run = (pool: LanePool, frames: number, ns: bigint) =>
    lastValueFrom(
      framesFrom(pool, { dtype: 'u32', length: N, count: frames }, (frame, i) => frame.data.set(pattern(i))).pipe(
        upload((frame) => frame),
        launch(kernels.spin, () => ({ config: { grid: 1, block: 1 }, args: [ns] })),
        launch(kernels.invert, (w) => ({ config: { grid: N / 256, block: 256 }, args: [w.buffers.input, N] })),
        download((w) => w.buffers.input, 'out', { lend: 'release' }),
        tap((w) => {
          using out = w.results.out;
          expect(out.data, `frame ${w.index}`).toEqual(pattern(w.index).map((v) => ~v >>> 0));
        }),
        toArray(),
      ),
    ).then((values) => values.map((w) => ({ index: w.index, lane: w.lane.index })));

  /** Whether each lane's values came in their order. */
  const inLaneOrder = (seen: readonly { index: number; lane: number }[]) => {
    const last = new Map<number, number>();
    return seen.every(({ index, lane }) => index > (last.get(lane) ?? -1) && last.set(lane, index) !== undefined);
  };

  for (const road of ['events', 'words'] as WatchRoad[]) {
    it(`gives every value its exact result, each lane's in order, all watched (${road})`, async () => {
      setWatchRoad(road);
      const pool = newPool({ lanes: 8, inFlight: 16, spin: 100_000 });
      const seen = await run(pool, 2000, 0n);
      expect(seen.map((v) => v.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
      expect(inLaneOrder(seen)).toBe(true);
      expect({ watched: pool.stats.watched, notified: pool.stats.notified, gaveUp: pool.stats.watchesGivenUp }).toEqual({ watched: 2000, notified: 0, gaveUp: 0 });
      expect(pool.stats.inFlight).toBe(0);
    });

    it(`falls back to a completion point for a value that outlasts its watch, with its exact result (${road})`, async () => {
      setWatchRoad(road);
      // 1 µs of watching against 2 ms of device work: the lanes' first values give up.
      const pool = newPool({ lanes: 3, inFlight: 6, spin: 1 });
      const seen = await run(pool, 40, 2_000_000n);
      expect(seen.map((v) => v.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      expect(inLaneOrder(seen)).toBe(true);
      expect(pool.stats.watchesGivenUp).toBeGreaterThanOrEqual(1);
      expect(pool.stats.watched + pool.stats.notified).toBe(40);
      expect(pool.stats.inFlight).toBe(0);
    });
  }
});
