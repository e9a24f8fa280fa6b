// The roads data takes between the host and a pipeline: pinned frames the producer fills, results
// lent in place, pageable arrays copied by native threads, registered arrays; on each backend.
import { beforeAll, expect, it, vi } from 'vitest';
import { count, firstValueFrom, from, lastValueFrom, map, range, tap, toArray } from 'rxjs';
import {
  CudaError, LentArray, RxcudaError, Timeline, download, framesFrom, launch, onStreams, upload, type Device,
} from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';
import { lanePools } from '../support/streams.js';

const SMALL = 1024; // 4 KiB frames: copied on the main thread
const LARGE = 1 << 18; // 1 MiB frames: copied by native threads
const pattern = (i: number, n: number) => Uint32Array.from({ length: n }, (_, j) => (i * 7919 + j * 31) >>> 0);
const config = (n: number) => ({ grid: Math.ceil(n / 256), block: 256 });

describeBackends('copy roads', (getDevice) => {
  let device: Device;
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  beforeAll(async () => {
    device = getDevice();
    kernels = await testKernels(device);
  });
  const newPool = lanePools(() => device);
  const pool = (lanes = 3, inFlight = 6) => newPool({ lanes, inFlight });

  it('fills pinned frames in place and reuses them: the pool count stays flat over 1000 frames', async () => {
    // One lane: which buffers are in use when is the same for every frame, so the count is exact.
    const lanes = pool(1, 3);
    const run = (frames: number) =>
      lastValueFrom(
        framesFrom(lanes, { dtype: 'u32', length: SMALL, count: frames }, (frame, i) => {
          expect(frame.data).toBeInstanceOf(Uint32Array);
          frame.data.set(pattern(i, SMALL));
        }).pipe(
          upload((frame) => frame),
          launch(kernels.invert, (w) => ({ config: config(SMALL), args: [w.buffers.input, SMALL] })),
          download((w) => w.buffers.input, 'out', { lend: 'release' }),
          tap((w) => {
            using out = w.results.out;
            const expected = pattern(w.index, SMALL).map((v) => ~v >>> 0);
            expect(out.data, `frame ${w.index}`).toEqual(expected);
          }),
          count(),
        ),
      );
    expect(await run(50)).toBe(50);
    const warm = lanes.stats.buffersCreated;
    expect(await run(1000)).toBe(1000);
    expect(lanes.stats.buffersCreated).toBe(warm);
    expect(lanes.stats.buffersInUse).toBe(0);
    // Each value in flight holds a frame, a device array and a download staging buffer.
    expect(warm).toBeLessThanOrEqual(3 * 3);
  });

  it('finds its frames pinned still when a pipeline made on the device is subscribed again', async () => {
    const words = (1 << 20) + 256; // past the small cached blocks
    const run = () =>
      lastValueFrom(
        framesFrom(device, { dtype: 'u32', length: words, count: 12, lanes: 2, inFlight: 4 }, (frame, i) => {
          frame.data[0] = i;
        }).pipe(
          upload((frame) => frame),
          launch(kernels.invert, (w) => ({ config: config(words), args: [w.buffers.input, words] })),
          download((w) => w.buffers.input, 'out', { lend: 'release' }),
          map((w) => {
            using out = w.results.out;
            return out.data[0] === ~w.index >>> 0;
          }),
          toArray(),
        ),
      );
    const pinned = vi.spyOn(device.engine.backend, 'allocHost');
    try {
      expect(await run()).toEqual(Array(12).fill(true));
      const first = pinned.mock.calls.length;
      expect(first).toBeGreaterThan(0);
      expect(await run()).toEqual(Array(12).fill(true));
      expect(pinned.mock.calls.length).toBe(first); // the closed pool's blocks, kept a moment
    } finally {
      pinned.mockRestore();
    }
  });

  it('ends a frame source when fill returns false, and passes on what fill throws', async () => {
    const seen = await lastValueFrom(
      framesFrom(pool(), { dtype: 'u8', length: 16 }, (frame, i) => (i === 5 ? false : void frame.data.fill(i))).pipe(
        map((w) => w.value.data[0]),
        toArray(),
      ),
    );
    expect(seen.sort()).toEqual([0, 1, 2, 3, 4]);
    const error = await lastValueFrom(
      framesFrom(pool(), { dtype: 'u8', length: 16 }, async (_frame, i) => {
        if (i === 2) throw new RangeError('camera gone');
      }).pipe(toArray()),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RangeError);
  });

  it('refuses reads of a lent result once it is returned: release(), using, or the next value', async () => {
    const results = await firstValueFrom(
      range(0, 3).pipe(
        map((i) => pattern(i, SMALL)),
        onStreams(pool(1, 1)),
        upload((x) => x),
        download((w) => w.buffers.input, 'x', { lend: 'release' }),
        toArray(),
      ),
    );
    const [first, second] = results.map((w) => w.results.x);
    const view = first!.data;
    expect(view[1]).toBe(pattern(0, SMALL)[1]);
    first!.release();
    expect(first!.returned).toBe(true);
    expect(() => first!.data).toThrow(RxcudaError);
    expect(() => first!.data).toThrow(/was returned/);
    expect(view.length).toBe(0); // a view taken before is emptied: no stale data
    expect(view[1]).toBeUndefined();
    first!.release(); // idempotent
    {
      using lent = second!;
      expect(lent.data[2]).toBe(pattern(1, SMALL)[2]);
    }
    expect(() => second!.data).toThrow(RxcudaError);
    results[2]!.results.x.release();

    const kept: LentArray<'u32'>[] = [];
    await lastValueFrom(
      range(0, 4).pipe(
        map((i) => pattern(i, SMALL)),
        onStreams(pool(2, 4)),
        upload((x) => x),
        download((w) => w.buffers.input, 'x', { lend: 'next' }),
        tap((w) => {
          // Lent until the next value is emitted: readable now, the one before is returned.
          expect(w.results.x.data[0]).toBe(pattern(w.index, SMALL)[0]);
          for (const earlier of kept) expect(earlier.returned).toBe(true);
          kept.push(w.results.x);
        }),
      ),
    );
    expect(kept.map((k) => k.returned)).toEqual([true, true, true, false]);
    kept[3]!.release();
  });

  it('downloads large frames into the caller\'s arrays exactly, copied off the main thread', async () => {
    const targets = [new Uint32Array(LARGE), new Uint32Array(LARGE)];
    const timeline = new Timeline();
    const lanes = newPool({ lanes: 2, inFlight: 2, timeline });
    const results = await lastValueFrom(
      range(0, 8).pipe(
        map((i) => pattern(i, LARGE)),
        onStreams(lanes),
        upload((x) => x),
        launch(kernels.invert, (w) => ({ config: config(LARGE), args: [w.buffers.input, LARGE] })),
        download((w) => w.buffers.input, 'x', { into: (w) => targets[w.lane.index]! }),
        map((w) => ({ i: w.index, same: w.results.x === targets[w.lane.index], x: w.results.x.slice() })),
        toArray(),
      ),
    );
    expect(results).toHaveLength(8);
    for (const r of results) {
      expect(r.same).toBe(true);
      expect(r.x, `frame ${r.i}`).toEqual(pattern(r.i, LARGE).map((v) => ~v >>> 0));
    }
    const summary = timeline.summary();
    expect(summary['host:stage input [workers]']?.count).toBe(8);
    expect(summary['host:copy x [workers]']?.bytes).toBe(8 * LARGE * 4);
    expect(summary['device:upload input [staged]']?.bytesPerSecond).toBeGreaterThan(0);
    expect(summary['device:download x [into]']?.count).toBe(8);
  });

  it('gives each large result an array of its own when no `into` is given', async () => {
    const results = await lastValueFrom(
      range(0, 4).pipe(
        map((i) => pattern(i, LARGE)),
        onStreams(pool(2, 4)),
        upload((x) => x),
        download((w) => w.buffers.input, 'x'),
        toArray(),
      ),
    );
    for (const w of results) expect(w.results.x).toEqual(pattern(w.index, LARGE));
    expect(new Set(results.map((w) => w.results.x.buffer)).size).toBe(4);
  });

  it('uploads a registered array without a host copy, and leaves it to its owner after close', async () => {
    const mine = pattern(3, LARGE);
    const registered = device.registerHost(mine);
    expect(registered.registered).toBe(true);
    expect(registered.data).toBe(mine);
    expect(registered.dtype).toBe('u32');
    const timeline = new Timeline();
    const lanes = newPool({ lanes: 1, timeline });
    const [result] = await lastValueFrom(
      from([0]).pipe(
        onStreams(lanes),
        upload(() => registered),
        download((w) => w.buffers.input, 'x', { lend: 'release' }),
        map((w) => w.results.x.data.slice()),
        toArray(),
      ),
    );
    expect(result).toEqual(pattern(3, LARGE));
    expect(Object.keys(timeline.summary())).toContain('device:upload input [registered]');
    expect(Object.keys(timeline.summary()).some((k) => k.startsWith('host:stage'))).toBe(false);
    registered.close();
    expect(mine[5]).toBe(pattern(3, LARGE)[5]);
    expect(() => device.registerHost([1, 2] as never)).toThrow(TypeError);
  });

  it('refuses memory registered already, whole or in part, with the driver\'s CudaError (712)', async () => {
    const mine = new Uint32Array(1024);
    const registered = device.registerHost(mine);
    try {
      for (const again of [mine, mine.subarray(100, 200)]) {
        let thrown: unknown;
        try {
          device.registerHost(again).close();
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(CudaError);
        expect((thrown as CudaError).code).toBe(712);
        expect((thrown as CudaError).name).toBe('CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED');
      }
      // An empty registration locks nothing: closing it leaves the array at its address locked.
      device.registerHost(mine.subarray(0, 0)).close();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(() => device.registerHost(mine)).toThrow(CudaError);
    } finally {
      registered.close();
    }
  });

  it('refuses `lend` and `into` together, and an unknown `lend`', () => {
    expect(() => download((w) => (w as never), 'x', { lend: 'release', into: () => new Uint8Array(1) } as never)).toThrow(TypeError);
    expect(() => download((w) => (w as never), 'x', { lend: 'later' } as never)).toThrow(/`lend`/);
  });
});
