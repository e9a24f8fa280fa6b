// A LanePool outlives its pipelines: one subscribed after another (even one unsubscribed with
// values in flight) and pipelines subscribed at once share its lanes and its in-flight bound, each
// with its exact results. A closed pool, options beside a pool that differ from its own, and
// operators with no lanes upstream are refused with errors that say so.
import { beforeAll, expect, it } from 'vitest';
import { Subject, lastValueFrom, map, range, tap, toArray } from 'rxjs';
import { HostStepTimeoutError, LanePool, PipelineError, download, framesFrom, host, lanesFrom, launch, onStreams, upload, type Device } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';
import { lanePools } from '../support/streams.js';

const N = 256;
const pattern = (tag: number, i: number) => Uint32Array.from({ length: N }, (_, j) => (tag * 1_000_003 + i * 7919 + j) >>> 0);
const config = { grid: 1, block: N };

describeBackends('a LanePool shared by pipelines', (getDevice) => {
  let device: Device;
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  beforeAll(async () => {
    device = getDevice();
    kernels = await testKernels(device);
  });
  const pool = lanePools(() => device);

  /** `count` values tagged `tag` inverted on `lanes`, each after `ns` of device work; results by index. */
  const inverted = (lanes: LanePool, tag: number, count: number, ns = 0n) =>
    range(0, count).pipe(
      map((i) => pattern(tag, i)),
      onStreams(lanes),
      upload((data) => data),
      launch(kernels.spin, () => ({ config: { grid: 1, block: 1 }, args: [ns] })),
      launch(kernels.invert, (w) => ({ config, args: [w.buffers.input, N] })),
      download((w) => w.buffers.input, 'out'),
      map((w) => ({ index: w.index, out: w.results.out })),
    );

  const expectExact = (results: { index: number; out: Uint32Array }[], tag: number, count: number) => {
    expect(results.map((r) => r.index).sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i));
    for (const { index, out } of results) expect(out, `value ${index} of pipeline ${tag}`).toEqual(pattern(tag, index).map((v) => ~v >>> 0));
  };

  it('runs a pipeline subscribed after another was unsubscribed with values in flight', async () => {
    const lanes = pool({ lanes: 2, inFlight: 4 });
    // 20 ms of device work per value: the first pipeline still has 4 values in flight when it goes.
    const first = inverted(lanes, 1, 20, 20_000_000n).subscribe();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(lanes.stats.inFlight).toBe(4);
    first.unsubscribe();
    const results = await lastValueFrom(inverted(lanes, 2, 10).pipe(toArray()));
    expectExact(results, 2, 10);
    expect(lanes.stats.inFlight).toBe(0);
    expect(lanes.stats.buffersInUse).toBe(0);
  });

  it('runs a framesFrom pipeline after an unsubscribed one, reusing its frames', async () => {
    const lanes = pool({ lanes: 2, inFlight: 4 });
    const frames = (tag: number, count: number, ns = 0n) =>
      framesFrom(lanes, { dtype: 'u32', length: N, count }, (frame, i) => frame.data.set(pattern(tag, i))).pipe(
        upload((frame) => frame),
        launch(kernels.spin, () => ({ config: { grid: 1, block: 1 }, args: [ns] })),
        launch(kernels.invert, (w) => ({ config, args: [w.buffers.input, N] })),
        download((w) => w.buffers.input, 'out'),
        map((w) => ({ index: w.index, out: w.results.out })),
      );
    const first = frames(1, 20, 20_000_000n).subscribe();
    await new Promise((resolve) => setTimeout(resolve, 5));
    first.unsubscribe();
    const created = lanes.stats.buffersCreated;
    expectExact(await lastValueFrom(frames(2, 12).pipe(toArray())), 2, 12);
    expect(lanes.stats.buffersCreated).toBe(created); // the first pipeline's memory, reused
  });

  it('shares the in-flight bound between pipelines subscribed at once, each with its exact results', async () => {
    const lanes = pool({ lanes: 2, inFlight: 3 });
    const [a, b, c] = await Promise.all([1, 2, 3].map((tag) => lastValueFrom(inverted(lanes, tag, 30, 200_000n).pipe(toArray()))));
    expectExact(a!, 1, 30);
    expectExact(b!, 2, 30);
    expectExact(c!, 3, 30);
    expect(lanes.stats.maxInFlight).toBe(3);
    expect(lanes.stats.inFlight).toBe(0);
  });

  it('lets pipelines at once take freed places in turn: a long one does not starve a short one', async () => {
    const lanes = pool({ lanes: 1, inFlight: 2 });
    const done: string[] = [];
    const long = lastValueFrom(inverted(lanes, 1, 60, 300_000n).pipe(toArray())).then(() => done.push('long'));
    const short = lastValueFrom(inverted(lanes, 2, 5, 300_000n).pipe(toArray())).then(() => done.push('short'));
    await Promise.all([long, short]);
    expect(done).toEqual(['short', 'long']);
  });

  it('holds the bound for pulled sources sharing a pool, whose values come later than their places free', async () => {
    const lanes = pool({ lanes: 2, inFlight: 2 });
    /** An async source of `count` arrays tagged `tag`, each given after a timer. */
    async function* later(tag: number, count: number) {
      for (let i = 0; i < count; i++) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        yield pattern(tag, i);
      }
    }
    const pulled = (tag: number) =>
      lastValueFrom(
        lanesFrom(later(tag, 8), lanes).pipe(
          upload((data) => data),
          launch(kernels.invert, (w) => ({ config, args: [w.buffers.input, N] })),
          download((w) => w.buffers.input, 'out'),
          map((w) => ({ index: w.index, out: w.results.out })),
          toArray(),
        ),
      );
    const framed = (tag: number) =>
      lastValueFrom(
        framesFrom(lanes, { dtype: 'u32', length: N, count: 8 }, async (frame, i) => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          frame.data.set(pattern(tag, i));
        }).pipe(
          upload((frame) => frame),
          launch(kernels.invert, (w) => ({ config, args: [w.buffers.input, N] })),
          download((w) => w.buffers.input, 'out'),
          map((w) => ({ index: w.index, out: w.results.out })),
          toArray(),
        ),
      );
    const results = await Promise.all([pulled(1), pulled(2), pulled(3), framed(4), framed(5), lastValueFrom(inverted(lanes, 6, 8).pipe(toArray()))]);
    results.forEach((r, k) => expectExact(r, k + 1, 8));
    expect(lanes.stats.maxInFlight).toBe(2);
    expect(lanes.stats.buffersInUse).toBe(0);
  });

  it('passes the turn to the pipeline after the one that took a place, idle pipelines on the pool or not', async () => {
    const lanes = pool({ lanes: 1, inFlight: 1 });
    const idle = [new Subject<Uint32Array>(), new Subject<Uint32Array>()];
    const idling = idle.map((subject) => subject.pipe(onStreams(lanes)).subscribe());
    const order: number[] = [];
    const tagged = (tag: number) =>
      lastValueFrom(
        range(0, 20).pipe(
          map((i) => pattern(tag, i)),
          onStreams(lanes),
          tap(() => order.push(tag)),
          upload((data) => data),
          launch(kernels.invert, (w) => ({ config, args: [w.buffers.input, N] })),
          toArray(),
        ),
      );
    await Promise.all([tagged(1), tagged(2)]);
    idling.forEach((s) => s.unsubscribe());
    // A and B take every place in turn (B's first turn comes as soon as it waits).
    expect(order.slice(0, 30)).toEqual(Array.from({ length: 30 }, (_, i) => 1 + (i % 2)));
  });

  it('refuses a closed pool: at once, or to the subscriber when it closed after the operator was made', async () => {
    const closed = pool();
    closed.close();
    expect(closed.closed).toBe(true);
    expect(() => onStreams(closed)).toThrow(new TypeError('Expected `target` to be an open LanePool, got a closed LanePool'));
    expect(() => framesFrom(closed, { dtype: 'u8', length: 4 }, () => {})).toThrow(TypeError);
    const later = pool();
    const operator = onStreams(later);
    later.close();
    await expect(lastValueFrom(range(0, 3).pipe(operator))).rejects.toThrow(new TypeError('Expected `target` to be an open LanePool, got a closed LanePool'));
    expect(later.stats.maxInFlight).toBe(0); // nothing started
  });

  it('takes options beside a pool only where they are its own', () => {
    const lanes = pool({ lanes: 3, inFlight: 5 });
    expect(() => onStreams(lanes, { lanes: 3, inFlight: 5 })).not.toThrow();
    expect(() => onStreams(lanes, { inFlight: 9 })).toThrow(RangeError);
    expect(() => onStreams(lanes, { inFlight: 9 })).toThrow(/`inFlight`.*the pool's own \(5\).*got 9/);
    expect(() => framesFrom(lanes, { dtype: 'u8', length: 4, spin: 100 }, () => {})).toThrow(/`spin`.*the pool's own \(1000\)/);
    expect(lanes.stats.maxInFlight).toBe(0);
  });

  it('errors a pipeline whose operators have no lanes upstream with a TypeError, not a crash', async () => {
    const values = range(0, 2).pipe(map(() => new Float32Array(4)));
    await expect(lastValueFrom(values.pipe(upload((x) => x as never) as never))).rejects.toThrow(
      new TypeError('Expected the values of upload(input) to be a Work envelope: put onStreams, lanesFrom or framesFrom before it, got a Float32Array of 4'),
    );
  });

  it('lets the failures of an errored pipeline\'s values in flight go, with no warning', async () => {
    const warnings: Error[] = [];
    const listen = (warning: Error) => warnings.push(warning);
    process.on('warning', listen);
    try {
      const lanes = pool({ lanes: 1, inFlight: 3 });
      // Each value's step never settles and is given up after 30 ms: the first ends the pipeline,
      // and the two behind it on the lane are given up after it.
      const failing = range(0, 3).pipe(map(() => new Uint32Array(4)), onStreams(lanes), upload((x) => x), host(() => new Promise(() => {}), { timeout: 30 }));
      const error: unknown = await lastValueFrom(failing).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PipelineError);
      expect((error as PipelineError).index).toBe(0);
      expect((error as PipelineError).cause).toBeInstanceOf(HostStepTimeoutError);
      await lanes.lanes[0]!.stream.synchronized();
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(warnings.map((w) => w.message)).toEqual([]);
    } finally {
      process.off('warning', listen);
    }
  });
});
