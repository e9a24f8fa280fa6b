// Operators that enqueue a value's work at once (upload, launch, enqueue, gemm, fft) applied one
// after another share one subscription: the values, their order, their results and the failures
// (which operator, which value, what was enqueued before) are those of the operators one by one.
import { afterEach, beforeAll, expect, it } from 'vitest';
import { firstValueFrom, lastValueFrom, map, pipe, range, tap, toArray, type Observable } from 'rxjs';
import { PipelineError, download, enqueue, launch, onStreams, replay, upload, type Device, type Kernel, type Work } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { testKernels, unluckyKernel } from '../support/kernels.js';
import { lanePools } from '../support/streams.js';

const N = 64;
const one = { grid: 1, block: 1 };
const grid = { grid: 1, block: N };
const frame = (i: number) => new Uint32Array(N).fill(i);

describeBackends('runs of steps', (getDevice, backend) => {
  let device: Device;
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  let thrower: Kernel<readonly ['ptr<u32>', 'u32']>;
  beforeAll(async () => {
    device = getDevice();
    kernels = await testKernels(device);
    thrower = await unluckyKernel(device);
  });
  const newPool = lanePools(() => device, afterEach);

  // (~i + 1) ^ ... : the three kernels do not commute, so a step run out of order shows.
  const expected = (i: number) => (~((~i >>> 0) + 1 >>> 0) >>> 0) + 3 >>> 0;

  it.each([
    ['a run of steps', false, false],
    ['the same operators kept apart by tap', true, false],
    ['a run of steps, replayed', false, true],
  ])('%s: every value through every step in order, with the same results', async (_, apart, replayed) => {
    const nothing = <V>() => tap<V>(() => {});
    const work = apart
      ? pipe(
          pipe(
            upload((i: number) => frame(i)),
            nothing(),
            launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.input, N] })),
            nothing(),
            launch(kernels.addU32, (w) => ({ config: grid, args: [w.buffers.input, 1, N] })),
          ),
          nothing(),
          launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.input, N] })),
          nothing(),
          enqueue((w, stream) => stream.launch(kernels.addU32, grid, [w.buffers.input, 3, N]), 'plus3'),
          download((w) => w.buffers.input, 'out'),
        )
      : pipe(
          upload((i: number) => frame(i)),
          launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.input, N] })),
          launch(kernels.addU32, (w) => ({ config: grid, args: [w.buffers.input, 1, N] })),
          launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.input, N] })),
          enqueue((w, stream) => stream.launch(kernels.addU32, grid, [w.buffers.input, 3, N]), 'plus3'),
          download((w) => w.buffers.input, 'out'),
        );
    const values = await lastValueFrom(
      range(0, 300).pipe(
        onStreams(newPool({ lanes: 4 })),
        replayed ? replay(work) : work,
        map((w) => [w.index, w.results.out[0], w.results.out[N - 1]]),
        toArray(),
      ),
    );
    // Values of several lanes come out as their lanes finish them: compared by index.
    expect(values.sort((x, y) => x[0]! - y[0]!)).toEqual(Array.from({ length: 300 }, (_, i) => [i, expected(i), expected(i)]));
  });

  it('names the step that failed and the value; nothing after it is enqueued for that value', async () => {
    const pool = newPool({ lanes: 1 });
    const emitted: number[] = [];
    const error = await firstValueFrom(
      range(0, 8).pipe(
        onStreams(pool),
        upload((i) => frame(i)),
        launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.input, N] })),
        launch(kernels.addU32, (w) => ({ config: grid, args: [w.buffers.input, w.index === 5 ? -1 : 1, N] })),
        launch(kernels.store, (w) => ({ config: one, args: [w.device('u32', 1, 'flag'), 7] })),
        download((w) => w.buffers.flag, 'flag'),
        map((w) => w.index),
        toArray(),
      ),
    ).then((values) => void emitted.push(...values), (e: unknown) => e);
    expect(error).toBeInstanceOf(PipelineError);
    expect([(error as PipelineError).operator, (error as PipelineError).index]).toEqual(['launch(add_u32)', 5]);
    expect((error as PipelineError).cause).toBeInstanceOf(RangeError);
    expect(emitted).toEqual([]);
    await new Promise((r) => setTimeout(r, 50));
    expect(pool.stats.inFlight).toBe(0);
  });

  it('names the first step for a value that is not an envelope', async () => {
    // What a caller without types can write: plain numbers where envelopes belong.
    const values = range(0, 2) as unknown as Observable<Work<number>>;
    const error = await lastValueFrom(
      values.pipe(
        launch(kernels.invert, () => ({ config: grid, args: [0n as never, N] })),
        launch(kernels.addU32, () => ({ config: grid, args: [0n as never, 1, N] })),
      ),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^Expected the values of launch\(invert\) to be a Work envelope/);
  });

  it('names an upload whose select throws, for its value, in the middle of a run', async () => {
    const error = await lastValueFrom(
      range(0, 6).pipe(
        onStreams(newPool({ lanes: 2 })),
        upload((i) => frame(i), 'a'),
        upload((i) => {
          if (i === 4) throw new Error('no frame');
          return frame(i);
        }, 'b'),
        launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.b, N] })),
        download((w) => w.buffers.b, 'out'),
      ),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PipelineError);
    expect([(error as PipelineError).operator, (error as PipelineError).index]).toEqual(['upload(b)', 4]);
    expect(((error as PipelineError).cause as Error).message).toBe('no frame');
  });

  it('keeps a shared start apart: each pipeline built on it runs its own steps after it', async () => {
    const pool = newPool({ lanes: 2 });
    const start = range(0, 20).pipe(
      onStreams(pool),
      upload((i) => frame(i)),
      launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.input, N] })),
    );
    const plusOne = start.pipe(
      launch(kernels.addU32, (w) => ({ config: grid, args: [w.buffers.input, 1, N] })),
      download((w) => w.buffers.input, 'out'),
      toArray(),
    );
    const plain = start.pipe(download((w) => w.buffers.input, 'out'), toArray());
    // Values of several lanes come out as their lanes finish them: read by index.
    const byIndex = (values: { index: number; results: { out: Uint32Array } }[]) =>
      values.sort((x, y) => x.index - y.index).map((w) => w.results.out[0]);
    const [a, b] = (await Promise.all([lastValueFrom(plusOne), lastValueFrom(plain)])).map(byIndex);
    expect(a).toEqual(Array.from({ length: 20 }, (_, i) => ((~i >>> 0) + 1) >>> 0));
    expect(b).toEqual(Array.from({ length: 20 }, (_, i) => ~i >>> 0));
  });

  it.skipIf(backend === 'cuda')('names a CPU kernel that throws later as its own launch, not the run\'s last step', async () => {
    const error = await lastValueFrom(
      range(10, 6).pipe(
        onStreams(newPool({ lanes: 1 })),
        upload((i) => frame(i)),
        launch(thrower, (w) => ({ config: one, args: [w.buffers.input, w.value] })),
        launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.input, N] })),
        download((w) => w.buffers.input, 'out'),
      ),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PipelineError);
    expect([(error as PipelineError).operator, (error as PipelineError).index]).toEqual(['launch(fails)', 3]);
    expect(((error as PipelineError).cause as Error).message).toBe('unlucky');
  });
});
