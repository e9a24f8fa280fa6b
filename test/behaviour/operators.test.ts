// The reactive layer end to end, on each backend: values through lanes, results read back.
import { beforeAll, expect, it, vi } from 'vitest';
import { Subject, firstValueFrom, from, range, toArray, map, take } from 'rxjs';
import {
  LanePool, PipelineError, Stream, Timeline, completed, download, fanOut, host, lanesFrom, launch, onStreams, upload,
  type Device, type Work,
} from '../../src/index.js';
import { DeviceEngine } from '../../src/core/device/device-engine.js';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';
import { lanePools } from '../support/streams.js';

const N = 1024;
const frame = (i: number) => Uint32Array.from({ length: N }, (_, j) => (i * 7919 + j) >>> 0);
const grid = { grid: 4, block: 256 };

describeBackends('GPU pipelines', (getDevice) => {
  let device: Device;
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  beforeAll(async () => {
    device = getDevice();
    kernels = await testKernels(device);
  });
  const newPool = lanePools(() => device);
  const pool = (lanes = 3, inFlight = 6) => newPool({ lanes, inFlight });
  const frames = (count: number) => range(0, count).pipe(map((i) => ({ i, pixels: frame(i) })));

  it('carries 1000 frames through upload, two kernels, a host step and download, in bounds', async () => {
    const lanes = pool();
    const seenByHost: number[] = [];
    const results = await firstValueFrom(
      frames(1000).pipe(
        onStreams(lanes),
        upload((f) => f.pixels, 'pixels'),
        launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.pixels, N] })),
        launch(kernels.addU32, (w) => ({ config: grid, args: [w.buffers.pixels, w.value.i, N] })),
        host((w) => void seenByHost.push(w.index)),
        download((w) => w.buffers.pixels, 'pixels'),
        toArray(),
      ),
    );
    expect(results).toHaveLength(1000);
    for (const w of results) {
      const expected = frame(w.value.i).map((v) => ((~v >>> 0) + w.value.i) >>> 0);
      expect(w.results.pixels, `frame ${w.value.i}`).toEqual(expected);
    }
    expect([...seenByHost].sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(lanes.stats.maxInFlight).toBeLessThanOrEqual(6);
    expect(lanes.stats.maxInFlight).toBeGreaterThan(1);
    expect(lanes.stats.inFlight).toBe(0);
    expect(lanes.stats.buffersInUse).toBe(0);
    // Pools, not allocations per value: each value in flight holds three pooled buffers (upload
    // staging, device array, download staging), from free lists the lanes share.
    expect(lanes.stats.buffersCreated).toBeLessThanOrEqual(3 * 6);
  });

  it('downloads into arrays the caller gives, and refuses ones of another type', async () => {
    const targets = [new Uint32Array(N), new Uint32Array(N)];
    const results = await firstValueFrom(
      frames(6).pipe(
        onStreams(pool(2, 2)),
        upload((f) => f.pixels),
        launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.input, N] })),
        download((w) => w.buffers.input, 'pixels', { into: (w) => targets[w.lane.index]! }),
        map((w) => ({ i: w.value.i, same: w.results.pixels === targets[w.lane.index], first: w.results.pixels[0] })),
        toArray(),
      ),
    );
    expect(results.map((r) => r.same)).toEqual([true, true, true, true, true, true]);
    expect(results.map((r) => r.first)).toEqual(results.map((r) => ~frame(r.i)[0]! >>> 0));
    const error = await firstValueFrom(
      frames(1).pipe(
        onStreams(pool(1, 1)),
        upload((f) => f.pixels),
        // @ts-expect-error: a Float32Array for u32 memory, refused at run time too
        download((w) => w.buffers.input, 'x', { into: () => new Float32Array(N) }),
      ),
    ).catch((e) => e);
    expect(error).toBeInstanceOf(PipelineError);
    expect(error.message).toBe(`download(x) failed for value #0: Expected \`into(work)\` to be a Uint32Array of at least ${N} elements, got a Float32Array of ${N}`);
  });

  it('keeps the order of values within each lane', async () => {
    const results = await firstValueFrom(frames(60).pipe(onStreams(pool(3, 6)), upload((f) => f.pixels), completed(), toArray()));
    for (let lane = 0; lane < 3; lane++) {
      const indices = results.filter((w) => w.lane.index === lane).map((w) => w.index);
      expect(indices).toEqual([...indices].sort((a, b) => a - b));
      expect(indices.length).toBeGreaterThan(0);
    }
  });

  // Values on lane 0 wait 30 ms in a host step; those on lane 1 finish at once.
  const unevenLanes = (lanes: LanePool, count: number) =>
    firstValueFrom(
      frames(count).pipe(
        onStreams(lanes),
        upload((f) => f.pixels),
        host((w) => (w.lane.index === 0 ? new Promise((r) => setTimeout(r, 30)) : undefined)),
        launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.input, N] })),
        download((w) => w.buffers.input),
        toArray(),
      ),
    );

  it('sends each value to the lane with the fewest values in flight', async () => {
    const results = await unevenLanes(pool(2, 4), 24);
    for (const w of results) expect(w.results.output).toEqual(frame(w.value.i).map((v) => ~v >>> 0));
    const onLane = (lane: number) => results.filter((w) => w.lane.index === lane).length;
    expect(onLane(0) + onLane(1)).toBe(24);
    // Round robin would have given each lane 12 and waited for the slow one.
    expect(onLane(1)).toBeGreaterThan(2 * onLane(0));
  });

  it('pools memory for the values in flight, whichever lanes they take', async () => {
    const lanes = pool(2, 4);
    await unevenLanes(lanes, 40);
    expect(lanes.stats.buffersInUse).toBe(0);
    // Three buffers per value (upload staging, device array, download staging), shared by the lanes.
    expect(lanes.stats.buffersCreated).toBeLessThanOrEqual(3 * 4);
  });

  it('costs one completion notification per value', async () => {
    const lanes = pool(3, 6);
    // A pipeline's completion points: afterValue (spinning or not), onDone, notify.
    const watched = vi.spyOn(Stream.prototype, 'afterValue');
    const onDone = vi.spyOn(Stream.prototype, 'onDone');
    const notify = vi.spyOn(DeviceEngine.prototype, 'afterWork');
    try {
      await firstValueFrom(
        frames(30).pipe(
          onStreams(lanes),
          upload((f) => f.pixels),
          launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.input, N] })),
          download((w) => w.buffers.input),
          toArray(),
        ),
      );
      // The download's completion point frees the value's place too: no second one behind it.
      expect(watched.mock.calls.length + onDone.mock.calls.length + notify.mock.calls.length).toBe(30);
    } finally {
      watched.mockRestore();
      onDone.mockRestore();
      notify.mockRestore();
    }
    expect(lanes.stats.inFlight).toBe(0);
  });

  it('runs forked branches and joins them before what follows', async () => {
    const results = await firstValueFrom(
      frames(20).pipe(
        onStreams(pool(2, 4)),
        upload((f) => f.pixels, 'a'),
        upload((f) => f.pixels, 'b'),
        fanOut(2, (w, stream, i) =>
          i === 0 ? stream.launch(kernels.invert, grid, [w.buffers.a, N]) : stream.launch(kernels.addU32, grid, [w.buffers.b, 5, N]),
        ),
        launch(kernels.addU32, (w) => ({ config: grid, args: [w.buffers.a, 1, N] })),
        download((w) => w.buffers.a, 'a'),
        download((w) => w.buffers.b, 'b'),
        toArray(),
      ),
    );
    for (const w of results) {
      expect(w.results.a).toEqual(frame(w.value.i).map((v) => ((~v >>> 0) + 1) >>> 0));
      expect(w.results.b).toEqual(frame(w.value.i).map((v) => (v + 5) >>> 0));
    }
  });

  it('stops on unsubscribe, emits nothing more, and returns every pooled buffer', async () => {
    const lanes = pool(2, 4);
    const source = new Subject<{ i: number; pixels: Uint32Array }>();
    const emitted: number[] = [];
    const subscription = source
      .pipe(onStreams(lanes), upload((f) => f.pixels), launch(kernels.spin, () => ({ config: { grid: 1, block: 1 }, args: [5_000_000n] })), download((w) => w.buffers.input))
      .subscribe((w: Work<unknown>) => emitted.push(w.index));
    for (let i = 0; i < 10; i++) source.next({ i, pixels: frame(i) });
    expect(lanes.stats.inFlight).toBe(4); // the rest wait upstream
    subscription.unsubscribe();
    for (let i = 0; i < 5; i++) source.next({ i, pixels: frame(i) });
    await Promise.all(lanes.lanes.map((l) => l.stream.synchronized()));
    await new Promise((r) => setTimeout(r, 20));
    expect(emitted).toEqual([]);
    expect(lanes.stats.inFlight).toBe(0);
    expect(lanes.stats.buffersInUse).toBe(0);
  });

  it('reports a failed launch with the operator and the value, and emits nothing after', async () => {
    const emitted: number[] = [];
    const error = await new Promise<unknown>((resolve) =>
      frames(10)
        .pipe(
          onStreams(pool(2, 2)),
          upload((f) => f.pixels),
          launch(kernels.addU32, (w) => ({ config: grid, args: [w.buffers.input, w.index === 5 ? -1 : 1, N] })),
          completed(),
        )
        .subscribe({ next: (w) => emitted.push(w.index), error: resolve }),
    );
    expect(error).toBeInstanceOf(PipelineError);
    expect((error as PipelineError).operator).toBe('launch(add_u32)');
    expect((error as PipelineError).index).toBe(5);
    expect((error as PipelineError).cause).toBeInstanceOf(RangeError);
    await new Promise((r) => setTimeout(r, 50));
    expect(emitted.every((i) => i < 5)).toBe(true);
  });

  it('reports a failing host step with its value', async () => {
    const error = await firstValueFrom(
      from([1, 2, 3]).pipe(
        onStreams(pool(1, 2)),
        host((w) => {
          if (w.index === 1) throw new Error('bad value');
        }),
        completed(),
        take(3),
        toArray(),
      ),
    ).catch((e) => e);
    expect(error).toBeInstanceOf(PipelineError);
    expect(error.message).toBe('host failed for value #1: bad value');
  });
});

describeBackends('Timeline', (getDevice) => {
  it('records every stage of every value and exports a Chrome trace', async () => {
    const device = getDevice();
    const kernels = await testKernels(device);
    const timeline = new Timeline();
    const lanes = new LanePool(device, { lanes: 2, inFlight: 4, timeline });
    await firstValueFrom(
      range(0, 8).pipe(
        map((i) => frame(i)),
        onStreams(lanes),
        upload((pixels) => pixels),
        launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.input, N] })),
        host(() => {}),
        download((w) => w.buffers.input),
        toArray(),
      ),
    );
    const spans = timeline.spans();
    const stages = new Set(spans.map((s) => `${s.kind}:${s.stage}`));
    expect([...stages].sort()).toEqual(['device:download output [new array]', 'device:invert', 'device:upload input [staged]', 'host:host']);
    for (const stage of stages) expect(spans.filter((s) => `${s.kind}:${s.stage}` === stage).map((s) => s.index).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(spans.every((s) => s.duration >= 0 && s.start >= 0)).toBe(true);
    expect(new Set(spans.map((s) => s.lane))).toEqual(new Set([0, 1]));
    const trace = timeline.toChromeTrace();
    expect(trace.traceEvents.filter((e) => e.ph === 'X')).toHaveLength(32);
    expect(trace.traceEvents[0]).toMatchObject({ ph: 'M', pid: 1, name: 'process_name' });
    expect(timeline.toChromeTrace({ names: false }).traceEvents.every((e) => e.ph === 'X')).toBe(true);
    expect(timeline.summary()['device:invert']!.count).toBe(8);
    lanes.close();
  });
});

describeBackends('lanesFrom', (getDevice) => {
  it('pulls an endless source only as fast as values finish, and stops it on unsubscribe', async () => {
    const device = getDevice();
    let pulled = 0;
    let stopped = false;
    async function* frames() {
      try {
        for (;;) {
          pulled++;
          yield frame(pulled);
        }
      } finally {
        stopped = true;
      }
    }
    const pool = new LanePool(device, { lanes: 2, inFlight: 3 });
    const results = await firstValueFrom(lanesFrom(frames(), pool).pipe(upload((f) => f), completed(), take(50), toArray()));
    // Lanes finish independently, so values of different lanes may overtake one another.
    const indices = results.map((w) => w.index);
    expect(new Set(indices).size).toBe(50);
    expect(Math.max(...indices)).toBeLessThan(50 + 3);
    for (const lane of [0, 1]) {
      const own = results.filter((w) => w.lane.index === lane).map((w) => w.index);
      expect(own).toEqual([...own].sort((a, b) => a - b));
    }
    expect(pulled).toBeLessThanOrEqual(50 + 3);
    await new Promise((r) => setTimeout(r, 20));
    expect(stopped).toBe(true);
    expect(pool.stats.maxInFlight).toBeLessThanOrEqual(3);
    pool.close();
  });
});
