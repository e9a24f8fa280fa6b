// Pipelines whose values' completions a native thread watches (LanePool `spin`): on a GPU through
// an event per value that the watcher queries, falling back to a completion point past the spin
// time; on the host device the option changes nothing. On each backend, the results are those of
// the ordinary road.
import { beforeAll, expect, it } from 'vitest';
import { count, lastValueFrom, tap } from 'rxjs';
import { DEFAULT_POOL_SPIN, LanePool, download, framesFrom, launch, upload, type Device } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';
import { lanePools } from '../support/streams.js';

const N = 1024;
const pattern = (i: number) => Uint32Array.from({ length: N }, (_, j) => (i * 7919 + j * 31) >>> 0);
const config = { grid: N / 256, block: 256 };

describeBackends('pipelines that spin', (getDevice, backend) => {
  let device: Device;
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  beforeAll(async () => {
    device = getDevice();
    kernels = await testKernels(device);
  });
  const newPool = lanePools(() => device);
  const pool = (spin: number) => newPool({ lanes: 3, inFlight: 6, spin });

  /** Runs `frames` frames through invert, with a delay kernel of `ns` before it; the indices seen. */
  const run = (lanes: LanePool, frames: number, ns = 0n) => {
    const seen: number[] = [];
    const done = lastValueFrom(
      framesFrom(lanes, { dtype: 'u32', length: N, count: frames }, (frame, i) => frame.data.set(pattern(i))).pipe(
        upload((frame) => frame),
        launch(kernels.spin, () => ({ config: { grid: 1, block: 1 }, args: [ns] })),
        launch(kernels.invert, (w) => ({ config, args: [w.buffers.input, N] })),
        download((w) => w.buffers.input, 'out', { lend: 'release' }),
        tap((w) => {
          using out = w.results.out;
          expect(out.data, `frame ${w.index}`).toEqual(pattern(w.index).map((v) => ~v >>> 0));
          seen.push(w.index);
        }),
        count(),
      ),
    );
    return done.then((n) => ({ n, seen }));
  };

  it('gives every value its exact results once, within the in-flight bound, when each completion is watched', async () => {
    // Watched for up to 10 s: with 5 ms, a value that waited behind the suite's other files on the
    // GPU was notified after a give-up (292 and 235 of 300 watched, in two full runs).
    const lanes = pool(10_000_000);
    expect(lanes.spin).toBe(10_000_000);
    const { n, seen } = await run(lanes, 300);
    expect(n).toBe(300);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(lanes.stats.maxInFlight).toBeLessThanOrEqual(6);
    expect(lanes.stats.inFlight).toBe(0);
    expect(lanes.stats.buffersInUse).toBe(0);
    // On a GPU each value's completion went to the watcher; the host device notifies them all.
    const { watched, notified } = lanes.stats;
    expect({ watched, notified }).toEqual(device.kind === 'cuda' ? { watched: 300, notified: 0 } : { watched: 0, notified: 300 });
  });

  it('falls back to a completion point for values that outlast the watch, then notifies the lane\'s next values', async () => {
    // 1 µs of watching against 2 ms of device work per value: every watch gives up first, and each
    // give-up has its lane notify its next 32 values instead.
    const lanes = pool(1);
    const { n, seen } = await run(lanes, 40, 2_000_000n);
    expect(n).toBe(40);
    expect(seen).toHaveLength(40);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(lanes.stats.inFlight).toBe(0);
    const { watched, notified, watchesGivenUp } = lanes.stats;
    expect(watched + notified).toBe(40);
    if (device.kind === 'cuda') {
      // The lanes' first values are watched, and give up (a watcher descheduled for the 2 ms of a
      // value sees it done at its first look: a loaded machine may spare a lane its give-up).
      expect(watched).toBeGreaterThanOrEqual(3);
      expect(watchesGivenUp).toBeGreaterThanOrEqual(1);
      expect(watchesGivenUp).toBeLessThanOrEqual(watched);
      // Then each lane that gave up notifies its next 32 values: most of the 40.
      expect(notified).toBeGreaterThanOrEqual(20);
    } else expect({ watched, watchesGivenUp }).toEqual({ watched: 0, watchesGivenUp: 0 });
  });

  it('keeps the values of one lane in their order, watched or not, with the same results', async () => {
    // Short delays that vary by value, so that the watcher may see a later value's event first.
    const ordered = async (spin: number) => {
      const lanes = newPool({ lanes: 1, inFlight: 8, spin });
      const seen: number[] = [];
      const sums: number[] = [];
      const n = await lastValueFrom(
        framesFrom(lanes, { dtype: 'u32', length: N, count: 200 }, (frame, i) => frame.data.set(pattern(i))).pipe(
          upload((frame) => frame),
          launch(kernels.spin, (w) => ({ config: { grid: 1, block: 1 }, args: [BigInt((w.index % 5) * 2000)] })),
          launch(kernels.invert, (w) => ({ config, args: [w.buffers.input, N] })),
          download((w) => w.buffers.input, 'out', { lend: 'release' }),
          tap((w) => {
            using out = w.results.out;
            seen.push(w.index);
            sums.push(out.data.reduce((a, v) => (a + v) >>> 0, 0));
          }),
          count(),
        ),
      );
      expect(n).toBe(200);
      expect(lanes.stats.inFlight).toBe(0);
      return { seen, sums };
    };
    const watched = await ordered(DEFAULT_POOL_SPIN);
    const plain = await ordered(0);
    expect(watched.seen).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(plain.seen).toEqual(watched.seen);
    expect(watched.sums).toEqual(Array.from({ length: 200 }, (_, i) => pattern(i).map((v) => ~v >>> 0).reduce((a, v) => (a + v) >>> 0, 0)));
    expect(plain.sums).toEqual(watched.sums);
  });

  // On a GPU only: the host device's CPU kernels of all lanes may share its threads, so a long
  // one there can hold the other lanes' values back (and nothing is watched there).
  it.skipIf(backend !== 'cuda')('sees one lane\'s values finish while another lane\'s long value is still running', async () => {
    // Value 0 runs 30 ms on its lane; the other lane's short values finish meanwhile and are
    // emitted before it (the watcher queries each stream's oldest event: a stream's events
    // complete in order, not every stream's), none of them given up on (each watch lasts up to
    // 10 s, as the suite's other files share the GPU: with 100 ms, a few were given up under load).
    const lanes = newPool({ lanes: 2, inFlight: 4, spin: 10_000_000 });
    const seen: number[] = [];
    const n = await lastValueFrom(
      framesFrom(lanes, { dtype: 'u32', length: N, count: 24 }, (frame, i) => frame.data.set(pattern(i))).pipe(
        upload((frame) => frame),
        launch(kernels.spin, (w) => ({ config: { grid: 1, block: 1 }, args: [w.index === 0 ? 30_000_000n : 0n] })),
        launch(kernels.invert, (w) => ({ config, args: [w.buffers.input, N] })),
        download((w) => w.buffers.input, 'out', { lend: 'release' }),
        tap((w) => {
          using out = w.results.out;
          expect(out.data, `frame ${w.index}`).toEqual(pattern(w.index).map((v) => ~v >>> 0));
          seen.push(w.index);
        }),
        count(),
      ),
    );
    expect(n).toBe(24);
    expect(seen.indexOf(0), `emitted: ${seen}`).toBeGreaterThan(3);
    expect(lanes.stats.watchesGivenUp).toBe(0);
  });

  it('watches every value while the main thread is the bottleneck, none given up on', async () => {
    // Each value holds the main thread 200 µs: completions wait for it, and the watcher paces its
    // queries meanwhile; it still sees each one within its watch.
    const lanes = newPool({ lanes: 8, inFlight: 16, spin: 20_000 });
    const busy = (us: number) => {
      const until = performance.now() + us / 1000;
      while (performance.now() < until);
    };
    const seen: number[] = [];
    const n = await lastValueFrom(
      framesFrom(lanes, { dtype: 'u32', length: N, count: 400 }, (frame, i) => frame.data.set(pattern(i))).pipe(
        upload((frame) => frame),
        launch(kernels.invert, (w) => ({ config, args: [w.buffers.input, N] })),
        download((w) => w.buffers.input, 'out', { lend: 'release' }),
        tap((w) => {
          using out = w.results.out;
          if (out.data[0] !== ~pattern(w.index)[0]! >>> 0 || out.data[N - 1] !== ~pattern(w.index)[N - 1]! >>> 0) throw new Error(`frame ${w.index} is wrong`);
          seen.push(w.index);
          busy(200);
        }),
        count(),
      ),
    );
    expect(n).toBe(400);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 400 }, (_, i) => i));
    const { watched, notified, watchesGivenUp } = lanes.stats;
    expect({ watched, notified, watchesGivenUp }).toEqual(device.kind === 'cuda' ? { watched: 400, notified: 0, watchesGivenUp: 0 } : { watched: 0, notified: 400, watchesGivenUp: 0 });
  });

  it('refuses a spin that is not a whole number of microseconds ≥ 0, before making a stream', () => {
    const streams = device.engine.liveLanes().length;
    expect(() => new LanePool(device, { spin: -1 })).toThrow(new RangeError('Expected `spin` to be an integer ≥ 0, got -1'));
    expect(() => new LanePool(device, { spin: 0.5 })).toThrow(new TypeError('Expected `spin` to be an integer, got 0.5'));
    expect(() => new LanePool(device, { spin: '10' as unknown as number })).toThrow(TypeError);
    expect(device.engine.liveLanes().length).toBe(streams);
    const plain = new LanePool(device, {});
    expect(plain.spin).toBe(DEFAULT_POOL_SPIN);
    expect(DEFAULT_POOL_SPIN).toBe(1000);
    plain.close();
  });
});
