// The launch operator with its configuration and arguments given once, functions of the value in
// the places that depend on it: the same results as the form with one function per value, eager
// and replayed; its refusals at once and per value; values that start while another's arguments
// are being made.
import { beforeAll, expect, it } from 'vitest';
import { Subject, count, firstValueFrom, lastValueFrom, map, pipe, range, tap, toArray } from 'rxjs';
import {
  LaunchConfig, PipelineError, completed, download, launch, onStreams, replay, upload,
  type Device, type LaunchContext, type Work,
} from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';
import { lanePools } from '../support/streams.js';

/** A value of any kind, as an operator made outside a pipeline takes it. */
type AnyValue = Work<unknown, unknown, unknown>;

const N = 512;
const grid = { grid: 2, block: 256 };
const frame = (i: number) => Uint32Array.from({ length: N }, (_, j) => (i * 40503 + j * 7) >>> 0);
const expected = (i: number) => frame(i).map((v) => ((~v >>> 0) + 3 * i + 1) >>> 0);

describeBackends('launch with arguments given once', (getDevice) => {
  let device: Device;
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  beforeAll(async () => {
    device = getDevice();
    kernels = await testKernels(device);
  });
  const newPool = lanePools(() => device);

  /** The frames' results through `work`, by index, on a pool of 3 lanes. */
  async function resultsOf(work: ReturnType<typeof givenOnce>, values: number, replayed: boolean) {
    const results = await lastValueFrom(
      range(0, values).pipe(
        map(frame),
        onStreams(newPool({ lanes: 3, inFlight: 6 })),
        replayed ? replay(work) : work,
        toArray(),
      ),
    );
    expect(results).toHaveLength(values);
    return results.sort((a, b) => a.index - b.index).map((w) => [...w.results.out]);
  }
  const givenOnce = () =>
    pipe(
      upload((data: Uint32Array) => data),
      launch(kernels.invert, grid, [(w) => w.buffers.input, N]),
      launch(kernels.addU32, new LaunchConfig(grid), [(w) => w.buffers.input, (w) => 3 * w.index, N]),
      launch(kernels.addU32, () => grid, [(w) => w.buffers.input, 1, N]),
      download((w) => w.buffers.input, 'out'),
    );
  const perValue = () =>
    pipe(
      upload((data: Uint32Array) => data),
      launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.input, N] })),
      launch(kernels.addU32, (w) => ({ config: new LaunchConfig(grid), args: [w.buffers.input, 3 * w.index, N] })),
      launch(kernels.addU32, (w) => ({ config: grid, args: [w.buffers.input, 1, N] })),
      download((w) => w.buffers.input, 'out'),
    );

  for (const replayed of [false, true])
    it(`gives the results of the per-value form, exact for every value (${replayed ? 'replayed' : 'eager'})`, async () => {
      const values = 200;
      const given = await resultsOf(givenOnce(), values, replayed);
      const plain = await resultsOf(perValue() as unknown as ReturnType<typeof givenOnce>, values, replayed);
      expect(given).toEqual(plain);
      for (let i = 0; i < values; i++) expect(given[i], `value ${i}`).toEqual([...expected(i)]);
    });

  it('refuses at once arguments that are not one per parameter, and a configuration that is not one', () => {
    expect(() => launch(kernels.addU32, grid, [(w: AnyValue) => w.device('u32', N), 1] as never)).toThrow(
      new TypeError('Expected `args` to be 3 arguments (ptr<u32>, u32, u32), got 2'),
    );
    expect(() => launch(kernels.addU32, { grid: 0, block: 256 }, [(w: AnyValue) => w.device('u32', N), 1, N])).toThrow(RangeError);
    expect(() => launch(kernels.addU32, grid as never)).toThrow(
      new TypeError('Expected `configure` to be a function, or a launch configuration followed by the arguments, got {"grid":2,"block":256}'),
    );
    expect(() => launch(kernels.addU32, grid, [(w: AnyValue) => w.device('u32', N), 1, N], { hook: [] } as never)).toThrow(TypeError);
  });

  it('refuses at once an argument given as it is that the kernel would refuse, and a hole', () => {
    const input = (w: AnyValue) => w.device('u32', N);
    expect(() => launch(kernels.addU32, grid, [input, 'x', N] as never)).toThrow(new TypeError('Expected `args[1]` to be an integer 0..4294967295 (u32), got "x"'));
    expect(() => launch(kernels.addU32, grid, [input, -1, N])).toThrow(RangeError);
    expect(() => launch(kernels.addU32, grid, [input, , N] as never)).toThrow(/^Expected `args\[1\]` to be an integer 0\.\.4294967295 \(u32\), got undefined$/);
    const f32 = device.allocHost('f32', N);
    try {
      expect(() => launch(kernels.addU32, grid, [f32, 1, N] as never)).toThrow(/^Expected `args\[0\]` to be memory of u32/);
    } finally {
      f32.close();
    }
    const closed = device.allocHost('u32', N);
    closed.close();
    expect(() => launch(kernels.addU32, grid, [closed, 1, N])).toThrow(/^Expected `args\[0\]` to be open memory/);
  });

  it('says that the arguments are missing, not that a configuration is no function', () => {
    const named = new TypeError('Expected `args` to be an array of kernel arguments, got {"hooks":[]}');
    expect(() => launch(kernels.addU32, grid, { hooks: [] } as never)).toThrow(named);
    expect(() => launch(kernels.addU32, () => grid, undefined as never, { hooks: [] })).toThrow(
      new TypeError('Expected `args` to be an array of kernel arguments, got undefined'),
    );
    expect(() => launch(kernels.addU32, grid, new Uint32Array(3) as never)).toThrow(/^Expected `args` to be an array of kernel arguments, got /);
  });

  it("fails the value whose one function gives no `{ config, args }`, saying what to give", async () => {
    const error = await firstValueFrom(
      range(0, 1).pipe(
        map(frame),
        onStreams(newPool({ lanes: 1, inFlight: 1 })),
        upload((data) => data),
        launch(kernels.addU32, (() => grid) as never),
        completed(),
      ),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PipelineError);
    expect((error as PipelineError).cause).toEqual(
      new TypeError('Expected `configure(work)` to be { config, args } (a function that gives the configuration alone takes the arguments after it), got {"grid":2,"block":256}'),
    );
  });

  it('calls the configuration function first: one that throws leaves the argument functions uncalled', async () => {
    const calls: string[] = [];
    const error = await firstValueFrom(
      range(0, 1).pipe(
        map(frame),
        onStreams(newPool({ lanes: 1, inFlight: 1 })),
        upload((data) => data),
        launch(
          kernels.addU32,
          () => {
            calls.push('config');
            throw new Error('no configuration');
          },
          [(w) => (calls.push('input'), w.buffers.input), 1, N],
        ),
        completed(),
      ),
    ).catch((e: unknown) => e);
    expect(((error as PipelineError).cause as Error).message).toBe('no configuration');
    expect(calls).toEqual(['config']);
  });

  it('fails the value whose argument function throws, naming the operator, and enqueues nothing for it', async () => {
    const seen: number[] = [];
    const error = await firstValueFrom(
      range(0, 6).pipe(
        map(frame),
        onStreams(newPool({ lanes: 1, inFlight: 1 })),
        upload((data) => data),
        launch(kernels.addU32, grid, [
          (w) => w.buffers.input,
          (w) => {
            if (w.index === 3) throw new Error('no value for 3');
            return 1;
          },
          N,
        ]),
        download((w) => w.buffers.input, 'out'),
        tap((w) => seen.push(w.index)),
        toArray(),
      ),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PipelineError);
    expect((error as PipelineError).operator).toBe('launch(add_u32)');
    expect((error as PipelineError).index).toBe(3);
    expect(((error as PipelineError).cause as Error).message).toBe('no value for 3');
    expect(seen).toEqual([0, 1, 2]);
  });

  it('fails a value whose function gives an argument of the wrong type, as the per-value form does', async () => {
    const error = await firstValueFrom(
      range(0, 2).pipe(
        map(frame),
        onStreams(newPool({ lanes: 1, inFlight: 1 })),
        upload((data) => data),
        launch(kernels.addU32, grid, [(w) => (w.index === 1 ? w.device('f32', N) : w.buffers.input) as never, 1, N]),
        completed(),
        toArray(),
      ),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PipelineError);
    expect((error as PipelineError).index).toBe(1);
    expect((error as PipelineError).cause).toBeInstanceOf(TypeError);
    expect(((error as PipelineError).cause as Error).message).toMatch(/^Expected `args\[0\]` to be memory of u32/);
  });

  it("gives each value its own arguments when one value's function starts another value of the same operator", async () => {
    const source = new Subject<number>();
    const pool = newPool({ lanes: 2, inFlight: 4 });
    const done = lastValueFrom(
      source.pipe(
        map(frame),
        onStreams(pool),
        upload((data) => data),
        launch(kernels.addU32, grid, [
          (w) => w.buffers.input,
          (w) => {
            if (w.index === 0) source.next(1); // value 1 runs this operator inside value 0's
            return 100 + w.index;
          },
          N,
        ]),
        download((w) => w.buffers.input, 'out'),
        toArray(),
      ),
    );
    source.next(0);
    source.complete();
    const results = (await done).sort((a, b) => a.index - b.index);
    expect(results.map((w) => w.index)).toEqual([0, 1]);
    for (const w of results) expect([...w.results.out], `value ${w.index}`).toEqual([...frame(w.index).map((v) => (v + 100 + w.index) >>> 0)]);
  });

  it('launches nothing for a value whose function started another value that failed the pipeline', async () => {
    const source = new Subject<number>();
    const launched: number[] = [];
    const failed = firstValueFrom(
      source.pipe(
        map(frame),
        onStreams(newPool({ lanes: 2, inFlight: 4 })),
        upload((data) => data),
        launch(
          kernels.addU32,
          grid,
          [
            (w) => w.buffers.input,
            (w) => {
              if (w.index === 0) source.next(1); // value 1 runs inside value 0's step
              if (w.index === 1) throw new Error('value 1 has no argument');
              return 7;
            },
            N,
          ],
          { hooks: [(context) => void launched.push(context.args[1] as number)] },
        ),
        completed(),
        toArray(),
      ),
    ).catch((e: unknown) => e);
    source.next(0);
    const error = await failed;
    expect(error).toBeInstanceOf(PipelineError);
    expect((error as PipelineError).index).toBe(1);
    expect(launched).toEqual([]);
  });

  it("shows the pipeline's hooks each value's own arguments, and a hook's context keeps them", async () => {
    const contexts: LaunchContext[] = [];
    await lastValueFrom(
      range(0, 3).pipe(
        map(frame),
        onStreams(newPool({ lanes: 1, inFlight: 2 })),
        upload((data) => data),
        launch(kernels.addU32, grid, [(w) => w.buffers.input, (w) => 10 + w.index, N], { hooks: [(context) => void contexts.push(context)] }),
        completed(),
        count(),
      ),
    );
    expect(contexts.map((c) => c.args[1])).toEqual([10, 11, 12]);
    expect(contexts.map((c) => c.args[2])).toEqual([N, N, N]);
  });
});
