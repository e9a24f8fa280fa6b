// What a value's operators check on every call, whatever the pool has already: a pooled buffer's
// element type and length, slot names, the side streams a value could not finish making, and the
// pool's counters from pipeline to pipeline.
import { expect, it, vi } from 'vitest';
import { lastValueFrom, map, range, toArray } from 'rxjs';
import { PipelineError, download, enqueue, fanOut, onStreams, upload, type Device, type DeviceArray, type Stream, type Work } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { collectUntil } from '../support/gc.js';
import { lanePools } from '../support/streams.js';

describeBackends('operator checks', (getDevice) => {
  const newPool = lanePools(() => getDevice());

  /** Value 0 takes `first()` of the pool, value 1 (once it has come back) `then()`: what value 1 gets or fails with. */
  async function afterPooled(first: (w: Work<number>) => DeviceArray, then: (w: Work<number>) => DeviceArray) {
    const pool = newPool({ lanes: 1, inFlight: 1 });
    const got = await lastValueFrom(
      range(0, 2).pipe(
        onStreams(pool),
        enqueue((w) => {
          (w.results as { array?: DeviceArray }).array = w.index === 0 ? first(w) : then(w);
        }),
        map((w) => (w.results as { array: DeviceArray }).array),
        toArray(),
      ),
    ).then(
      (arrays) => arrays[1]!,
      (error: unknown) => error,
    );
    return { got, created: pool.stats.buffersCreated };
  }

  it('refuses a length that is not an integer though a buffer of that length is pooled', async () => {
    const cases: [unknown, string][] = [
      ['16', 'TypeError: Expected `length` to be an integer, got "16"'],
      [[16], 'TypeError: Expected `length` to be an integer, got [16]'],
      [null, 'TypeError: Expected `length` to be an integer, got null'],
      ['', 'TypeError: Expected `length` to be an integer, got ""'],
      [true, 'TypeError: Expected `length` to be an integer, got true'],
      [16.1875, 'TypeError: Expected `length` to be an integer, got 16.1875'],
      [-16, 'RangeError: Expected `length` to be an integer ≥ 0, got -16'],
    ];
    for (const [length, message] of cases) {
      const { got } = await afterPooled((w) => w.device('f32', 16), (w) => w.device('f32', length as number));
      expect(got, String(length)).toBeInstanceOf(PipelineError);
      expect(String((got as PipelineError).cause), String(length)).toBe(message);
    }
  });

  it('refuses an unknown element type though the pool has buffers', async () => {
    const { got } = await afterPooled((w) => w.device('f32', 16), (w) => w.device('float' as 'f32', 16));
    expect((got as PipelineError).cause).toBeInstanceOf(TypeError);
    expect(String((got as PipelineError).cause)).toMatch(/^TypeError: Expected `dtype` to be one of i8, u8, .*, got "float"$/);
  });

  it('hands out a buffer of the element type and length asked, never a pooled one of another', async () => {
    for (const [dtype, length] of [['u64', 16], ['f32', 8], ['u8', 64], ['f64', 16]] as const) {
      const { got, created } = await afterPooled((w) => w.device('f32', 16), (w) => w.device(dtype, length));
      expect([(got as DeviceArray).dtype, (got as DeviceArray).length, created]).toEqual([dtype, length, 2]);
    }
    const { got, created } = await afterPooled((w) => w.device('f32', 16), (w) => w.device('f32', 16));
    expect([(got as DeviceArray).dtype, (got as DeviceArray).length, created]).toEqual(['f32', 16, 1]); // reused
  });

  it('refuses a slot name that is not a non-empty string, and a deviceOn stream that is not a Stream', async () => {
    for (const name of [42, null, '', '__proto__', Symbol('n')]) {
      const { got } = await afterPooled((w) => w.device('f32', 4), (w) => w.device('f32', 4, name as string));
      expect(String((got as PipelineError).cause), String(name)).toMatch(/^TypeError: Expected `name` to be a non-empty string other than "__proto__", got /);
    }
    const { got } = await afterPooled((w) => w.device('f32', 4), (w) => w.deviceOn({} as never, 'f32', 4));
    expect(String((got as PipelineError).cause)).toBe('TypeError: Expected `stream` to be a Stream, got {}');
  });

  it('closes the side streams a value made when the device refuses one, and the pool goes on', async () => {
    const device: Device = getDevice();
    const pool = newPool({ lanes: 1, inFlight: 1 });
    const refusal = new Error('out of streams');
    const made: Stream[] = [];
    let refuseAfter = 2;
    const createStream = device.createStream.bind(device);
    const spy = vi.spyOn(device, 'createStream').mockImplementation((options) => {
      if (made.length === refuseAfter) throw refusal;
      const stream = createStream(options);
      made.push(stream);
      return stream;
    });
    try {
      const error = await lastValueFrom(range(0, 1).pipe(onStreams(pool), fanOut(4, () => {}))).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PipelineError);
      expect((error as PipelineError).operator).toBe('fanOut(4)');
      expect((error as PipelineError).cause).toBe(refusal);
      expect(made.map((s) => s.closed)).toEqual([true, true]); // the two it made are closed
      // The lane makes them again for a later value, and its branches run on them.
      refuseAfter = Infinity;
      const branches: string[] = [];
      await lastValueFrom(range(0, 3).pipe(onStreams(pool), fanOut(2, (w, stream, i) => void branches.push(`${w.index}:${i}:${made.indexOf(stream)}`))));
      expect(branches).toEqual(['0:0:2', '0:1:3', '1:0:2', '1:1:3', '2:0:2', '2:1:3']);
      expect(made.map((s) => s.closed)).toEqual([true, true, false, false]);
    } finally {
      spy.mockRestore();
    }
  });

  it("measures download's `into` array through its slots: a subclass's length that lies is not believed, a Proxy is refused", async () => {
    class Claims extends Float32Array {
      override get length() {
        return 1 << 20;
      }
    }
    const run = (into: Float32Array) =>
      lastValueFrom(
        range(0, 1).pipe(
          onStreams(newPool({ lanes: 1 })),
          upload(() => new Float32Array([1, 2, 3, 4]), 'x'),
          download((w) => w.buffers.x, 'x', { into: () => into }),
          map((w) => Array.from(w.results.x)),
        ),
      ).catch((error: unknown) => String((error as PipelineError).cause ?? error));
    expect(await run(new Claims(2))).toBe('TypeError: Expected `into(work)` to be a Float32Array of at least 4 elements, got a Claims of 2');
    expect(await run(new Proxy(new Float32Array(4), {}))).toMatch(/^TypeError: Expected `into\(work\)` to be a Float32Array of at least 4 elements/);
    expect(await run(new Claims(4))).toEqual([1, 2, 3, 4]);
  });

  it("keeps the pool's buffer counters flat from pipeline to pipeline with lend: 'next'", async () => {
    const pool = newPool({ lanes: 1, inFlight: 2 });
    // The last value's array, readable once its pipeline has ended, copied: the array itself is left
    // to the garbage collector, not returned.
    const run = async (p: number) => {
      const w = await lastValueFrom(
        range(0, 3).pipe(
          map((i) => Float32Array.of(p, i)),
          onStreams(pool),
          upload((x) => x),
          download((w) => w.buffers.input, 'x', { lend: 'next' }),
        ),
      );
      return Float32Array.from(w.results.x.data);
    };
    const counts: [number, number][] = [];
    let last: Float32Array | undefined;
    for (let p = 0; p < 4; p++) {
      last = await run(p);
      // Its memory goes back once it is collected.
      expect(await collectUntil(() => pool.stats.buffersInUse === 0)).toBe(true);
      counts.push([pool.stats.buffersInUse, pool.stats.buffersCreated]);
    }
    expect(Array.from(last!)).toEqual([3, 2]);
    expect(counts.map(([inUse]) => inUse)).toEqual([0, 0, 0, 0]);
    expect(new Set(counts.map(([, created]) => created)).size).toBe(1); // no buffer made after the first pipeline
  });

  it("gives a lent array's memory back once when it was returned before being collected", async () => {
    const pool = newPool({ lanes: 1, inFlight: 1 });
    for (let p = 0; p < 3; p++) {
      const w = await lastValueFrom(range(0, 2).pipe(map(() => new Float32Array(4)), onStreams(pool), upload((x) => x), download((w) => w.buffers.input, 'x', { lend: 'next' })));
      expect(w.results.x.returned).toBe(false);
      w.results.x.release();
      expect(pool.stats.buffersInUse).toBe(0);
    }
    await collectUntil(() => false, 3);
    expect(pool.stats.buffersInUse).toBe(0); // not given back twice (it would go negative)
    const before = pool.stats.buffersCreated;
    await lastValueFrom(range(0, 2).pipe(map(() => new Float32Array(4)), onStreams(pool), upload((x) => x), download((w) => w.buffers.input, 'x')));
    expect(pool.stats.buffersCreated).toBe(before);
  });
});
