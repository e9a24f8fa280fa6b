// The two roads a GPU's pipeline values can be watched by (rxcuda/internal setWatchRoad): an event
// recorded behind each value, which the watcher queries, and a word of the lane's that the stream
// writes behind each value, which the watcher reads. Both give every value its results, each
// lane's values in order, and a watch that gives up falls back to a completion point.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { firstValueFrom, lastValueFrom, map, pipe, range, tap, toArray } from 'rxjs';
import { Device, LanePool, download, framesFrom, launch, onStreams, replay, upload } from '../../src/index.js';
import { setWatchRoad, type WatchRoad } from '../../src/internal.js';
import { describeGpu } from '../support/gpu.js';
import { testKernels } from '../support/kernels.js';
import { lanePools } from '../support/streams.js';

const N = 1024;
const pattern = (i: number) => Uint32Array.from({ length: N }, (_, j) => (i * 7919 + j * 31) >>> 0);

describe('setWatchRoad', () => {
  it('refuses a road that is neither', () => {
    expect(() => setWatchRoad('word' as WatchRoad)).toThrow(new TypeError(`Expected \`road\` to be 'events' or 'words', got "word"`));
  });
});

describeGpu('values watched through events and through words', () => {
  let device: Device;
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  beforeAll(async () => {
    device = Device.default();
    kernels = await testKernels(device);
  });
  afterEach(() => setWatchRoad('events'));
  const newPool = lanePools(() => device, afterEach);

  /** Frames through a delay of `ns` and invert on `pool`, each result checked: each value's index and lane. */
  const frames = (pool: LanePool, count: number, ns: bigint) =>
    framesFrom(pool, { dtype: 'u32', length: N, count }, (frame, i) => frame.data.set(pattern(i))).pipe(
      upload((frame) => frame),
      launch(kernels.spin, () => ({ config: { grid: 1, block: 1 }, args: [ns] })),
      launch(kernels.invert, (w) => ({ config: { grid: N / 256, block: 256 }, args: [w.buffers.input, N] })),
      download((w) => w.buffers.input, 'out', { lend: 'release' }),
      tap((w) => {
        using out = w.results.out;
        expect(out.data, `frame ${w.index}`).toEqual(pattern(w.index).map((v) => ~v >>> 0));
      }),
      map((w) => ({ index: w.index, lane: w.lane.index })),
    );
  const run = (pool: LanePool, count: number, ns: bigint) => lastValueFrom(frames(pool, count, ns).pipe(toArray()));

  /** Whether each lane's values came in their order. */
  const inLaneOrder = (seen: readonly { index: number; lane: number }[]) => {
    const last = new Map<number, number>();
    return seen.every(({ index, lane }) => index > (last.get(lane) ?? -1) && last.set(lane, index) !== undefined);
  };

  for (const road of ['events', 'words'] as WatchRoad[]) {
    it(`gives every replayed value its exact result (${road})`, async () => {
      setWatchRoad(road);
      // Watched for up to 10 s, as below: with the default 1 ms, a value that waited behind the
      // suite's other files on the GPU was notified after a give-up (848 of 1000 watched, once).
      const pool = newPool({ lanes: 4, inFlight: 8, spin: 10_000_000 });
      const results = await lastValueFrom(
        range(0, 1000).pipe(
          onStreams(pool),
          replay(pipe(
            upload((i: number) => pattern(i)),
            launch(kernels.invert, (w) => ({ config: { grid: N / 256, block: 256 }, args: [w.buffers.input, N] })),
            download((w) => w.buffers.input, 'out'),
          )),
          map((w) => [w.index, w.results.out] as const),
          toArray(),
        ),
      );
      expect(results).toHaveLength(1000);
      for (const [i, out] of results) expect(out, `value ${i}`).toEqual(pattern(i).map((v) => ~v >>> 0));
      expect(pool.stats.watched).toBe(1000);
    });

    it(`notifies twice as many of a lane's values after each further give-up (${road})`, async () => {
      setWatchRoad(road);
      // 3 lanes of 100 values of 2 ms each, watched for 1 µs. A lane's first two values are watched
      // (both given at once) and give up: 32, then 64 values to notify. Its value 66 is watched
      // and gives up: 128 to notify, past its last. With the count back at 32 after each value a
      // fallback settled, value 66's give-up would leave 32, and value 99 would be watched too.
      const pool = newPool({ lanes: 3, inFlight: 6, spin: 1 });
      const seen = await run(pool, 300, 2_000_000n);
      expect(seen).toHaveLength(300);
      const { watched, notified, watchesGivenUp } = pool.stats;
      expect(watched + notified).toBe(300);
      expect(watchesGivenUp).toBeGreaterThanOrEqual(1);
      expect(watched).toBeLessThanOrEqual(9);
    });

    it(`closes a pool whose values are still watched, and the next pool works (${road})`, async () => {
      setWatchRoad(road);
      const first = new LanePool(device, { lanes: 4, inFlight: 8, spin: 100_000 });
      // The first result ends the pipeline while the other lanes' 5 ms values are on the device.
      await firstValueFrom(frames(first, 8, 5_000_000n));
      first.close();
      const next = newPool({ lanes: 2, inFlight: 4 });
      const seen = await run(next, 50, 0n);
      expect(seen.map((v) => v.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    });


    it(`gives every value its exact result, each lane's in order, all watched (${road})`, async () => {
      setWatchRoad(road);
      // Watched for up to 10 s: the suite's other files share the GPU, and a value may wait behind
      // their work for longer than a test of its own would take (with 100 ms, up to a quarter of
      // the values were notified after give-ups when the whole suite ran).
      const pool = newPool({ lanes: 8, inFlight: 16, spin: 10_000_000 });
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
