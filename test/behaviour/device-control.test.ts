// loopOnDevice and branchOnDevice on both backends: a value's loop or branch decided on the device
// under replay (one conditional node of its executable), and from the host outside it, with the
// same exact results as a loop decided by hand; bounded loops failing their value with a
// LoopLimitError; bodies a graph cannot hold, and bad arguments, refused.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { firstValueFrom, map, pipe, range, take, toArray, type Observable } from 'rxjs';
import {
  DEVICE_CONTROL_EAGER_WARNING, GraphError, LoopLimitError, PipelineError, branchOnDevice, download, enqueue, host, launch, loopOnDevice,
  onStreams, replay, upload, type Device, type DeviceArray, type Kernel, type Work,
} from '../../src/index.js';
import { loadConditionKernelsOn } from '../../src/core/api/graph.js';
import { describeBackends } from '../support/backends.js';
import { lanePools } from '../support/streams.js';

const ONE = { grid: 1, block: 1 };

const SOURCE = String.raw`
// One iteration of a countdown in s = [counter, accumulator]: the accumulator takes the counter
// in (acc = acc * 31 + counter + salt), and the counter goes down by one.
extern "C" __global__ void count_down(unsigned* s, unsigned salt) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    s[1] = s[1] * 31u + s[0] + salt;
    s[0] -= 1u;
  }
}

// s[at] += amount.
extern "C" __global__ void add_at(int* s, unsigned at, int amount) {
  if (blockIdx.x == 0 && threadIdx.x == 0) s[at] += amount;
}
`;

interface Kernels {
  readonly countDown: Kernel<readonly ['ptr<u32>', 'u32']>;
  readonly addAt: Kernel<readonly ['ptr<i32>', 'u32', 'i32']>;
}

async function kernelsOf(device: Device): Promise<Kernels> {
  const module = await device.compile(SOURCE);
  return {
    countDown: module.kernel('count_down', ['ptr<u32>', 'u32'] as const, {
      cpu: (_, [s, salt]) => {
        s[1] = (Math.imul(s[1]!, 31) + s[0]! + salt) >>> 0;
        s[0] = (s[0]! - 1) >>> 0;
      },
    }),
    addAt: module.kernel('add_at', ['ptr<i32>', 'u32', 'i32'] as const, {
      cpu: (_, [s, at, amount]) => {
        s[at] = (s[at]! + amount) | 0;
      },
    }),
  };
}

/** What a countdown from `k` leaves: [0, the accumulator], computed in JavaScript. */
function countdown(k: number, acc: number, salt: number): number[] {
  for (; k !== 0; k--) acc = (Math.imul(acc, 31) + k + salt) >>> 0;
  return [0, acc];
}

interface Start {
  readonly i: number;
  readonly k: number;
  readonly acc: number;
}

/** A value of the countdowns: its start, and its state [counter, accumulator] on the device. */
type Counting = Work<Start, { readonly input: DeviceArray<'u32'> }, unknown>;

type Mode = 'eager' | 'replayed' | 'by hand';

/**
 * Each value's index and what its pipeline gave, by index. Values arrive in completion order (a
 * value on a less busy lane overtakes earlier ones on others), but those of one lane in theirs:
 * checked here.
 */
async function collect<T>(values: Observable<Work<T, unknown, { readonly out: ArrayLike<number> }>>): Promise<[number, number[]][]> {
  const arrived = await firstValueFrom(values.pipe(map((w) => ({ index: w.index, lane: w.lane.index, out: Array.from(w.results.out) })), toArray()));
  const lanes = new Map<number, number[]>();
  for (const { index, lane } of arrived) lanes.set(lane, [...(lanes.get(lane) ?? []), index]);
  for (const [lane, indices] of lanes) expect(indices, `the values of lane ${lane}, in the order they came`).toEqual([...indices].sort((a, b) => a - b));
  return arrived.sort((a, b) => a.index - b.index).map(({ index, out }) => [index, out]);
}

// The warning is said once a process (this file's): heard here for both backends together.
const warnings: string[] = [];
const listen = (warning: Error & { code?: string }) => {
  if (warning.code === DEVICE_CONTROL_EAGER_WARNING) warnings.push(warning.message);
};
beforeAll(() => void process.on('warning', listen));
afterAll(() => void process.off('warning', listen));

describeBackends('loopOnDevice and branchOnDevice', (getDevice, backend) => {
  let device: Device;
  let kernels: Kernels;
  beforeAll(async () => {
    device = getDevice();
    kernels = await kernelsOf(device);
    // The device's built-in condition kernels ready, so that replayed values take the device's road.
    await loadConditionKernelsOn(device);
  });

  /** Counts down each value's k from `start(i)` on its stream: as `mode` says. */
  function countdowns(count: number, start: (i: number) => Start, salt: (i: number) => number, mode: Mode, maxIterations?: number) {
    const { countDown } = kernels;
    const loop = mode === 'by hand'
      ? enqueue((w: Counting, stream) => {
        for (let j = 0; j < w.value.k; j++) stream.launch(countDown, ONE, [w.buffers.input, salt(w.value.i)]);
      })
      : loopOnDevice(
        pipe(launch(countDown, (w: Counting) => ({ config: ONE, args: [w.buffers.input, salt(w.value.i)] }))),
        { while: (w) => w.buffers.input, name: 'countdown', ...(maxIterations === undefined ? {} : { maxIterations }) },
      );
    const work = pipe(
      upload((v: Start) => Uint32Array.of(v.k, v.acc)),
      loop as never, // typed by its body; the pipe's types come from upload and download
      download((w: Counting) => w.buffers.input, 'out'),
    );
    return range(0, count).pipe(
      map(start),
      onStreams(device, { lanes: 2 }),
      mode === 'replayed' ? replay(work) : work,
    );
  }

  it('counts each value down exactly as a loop decided by hand, eager and replayed, each lane\'s values in order', async () => {
    const count = backend === 'cuda' ? 2000 : 700;
    const start = (i: number): Start => ({ i, k: i % 7, acc: i });
    const salt = (i: number) => i % 3;
    const byHand = await collect(countdowns(count, start, salt, 'by hand'));
    const eager = await collect(countdowns(count, start, salt, 'eager'));
    expect(warnings).toHaveLength(1); // said once, by the file's first pipeline to decide on the host
    expect(warnings[0]).toMatch(/countdown decides on the host, one value at a time/);
    const replayed = await collect(countdowns(count, start, salt, 'replayed'));
    const indices = Array.from({ length: count }, (_, i) => i);
    for (const results of [byHand, eager, replayed]) expect(results.map(([i]) => i)).toEqual(indices);
    for (let i = 0; i < count; i++) expect(byHand[i]![1], `value ${i}`).toEqual(countdown(i % 7, i, i % 3));
    expect(eager).toEqual(byHand);
    expect(replayed).toEqual(byHand);
    expect(warnings).toHaveLength(1);
  });

  it('runs a data-dependent loop of 1 to 100 iterations per value on the device, every result exact', async () => {
    const count = backend === 'cuda' ? 10_000 : 2000;
    const iterations = (i: number) => 1 + ((i * 37 + (i >> 3)) % 100);
    const results = await collect(countdowns(count, (i) => ({ i, k: iterations(i), acc: i * 3 }), () => 7, 'replayed'));
    expect(results).toHaveLength(count);
    expect(results.map(([i]) => i)).toEqual(Array.from({ length: count }, (_, i) => i));
    const wrong = results.filter(([i, out]) => out[0] !== 0 || out[1] !== countdown(iterations(i), i * 3, 7)[1]);
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(new Set(results.map(([i]) => iterations(i))).size).toBe(100);
  });

  /** Each value's [selector, amount added] once a branch (or none) ran for it. */
  function branches(count: number, selector: (i: number) => number, replayed: boolean, choose: 'switch' | 'if/else' | 'if') {
    const { addAt } = kernels;
    type W = Work<number, { readonly input: DeviceArray<'i32'> }, unknown>;
    const add = (amount: number) => pipe(launch(addAt, (w: W) => ({ config: ONE, args: [w.buffers.input, 1, amount] })));
    const on = (w: W) => w.buffers.input;
    const control = choose === 'switch' ? branchOnDevice(on, [add(100), add(200), add(300)])
      : choose === 'if/else' ? branchOnDevice(on, [add(1000), add(7)], { test: '>= 2' })
      : branchOnDevice(on, [add(50)], { test: '< 0' });
    const work = pipe(
      upload((i: number) => Int32Array.of(selector(i), 0)),
      control as never,
      download((w: W) => w.buffers.input, 'out'),
    );
    return collect(range(0, count).pipe(onStreams(device, { lanes: 2 }), replayed ? replay(work) : work));
  }

  it('routes each value to its branch by value (values past the cases and negative ones run none) and by comparison, replayed and eager', async () => {
    const count = backend === 'cuda' ? 2000 : 600;
    const selector = (i: number) => (i % 7) - 2; // -2 … 4
    const want = {
      switch: (s: number) => (s >= 0 && s < 3 ? (s + 1) * 100 : 0),
      'if/else': (s: number) => (s >= 2 ? 1000 : 7),
      if: (s: number) => (s < 0 ? 50 : 0),
    };
    for (const choose of ['switch', 'if/else', 'if'] as const) {
      const expected = Array.from({ length: count }, (_, i) => [i, [selector(i), want[choose](selector(i))]]);
      expect(await branches(count, selector, true, choose), `${choose}, replayed`).toEqual(expected);
      expect(await branches(count, selector, false, choose), `${choose}, eager`).toEqual(expected);
    }
  });

  it('fails a value whose loop runs past maxIterations with a LoopLimitError, after the values before it, replayed and eager', async () => {
    const FAILS = 9;
    const start = (i: number): Start => ({ i, k: i === FAILS ? 1000 : i % 7, acc: i });
    for (const mode of ['replayed', 'eager'] as const) {
      const seen: [number, number[]][] = [];
      const error = await new Promise<unknown>((resolve) => {
        countdowns(30, start, () => 1, mode, 50).subscribe({
          next: (w) => void seen.push([w.index, Array.from((w.results as { out: Uint32Array }).out)]),
          error: resolve,
          complete: () => resolve(undefined),
        });
      });
      expect(error, mode).toBeInstanceOf(PipelineError);
      expect((error as PipelineError).index, mode).toBe(FAILS);
      const cause = (error as PipelineError).cause;
      expect(cause, mode).toBeInstanceOf(LoopLimitError);
      expect(cause, mode).toMatchObject({ loop: 'countdown', iterations: 50 });
      const before = seen.filter(([i]) => i < FAILS).sort(([a], [b]) => a - b); // in completion order
      expect(before, mode).toEqual(Array.from({ length: FAILS }, (_, i) => [i, countdown(i % 7, i, 1)]));
      expect(seen.some(([i]) => i === FAILS), mode).toBe(false);
    }
  });

  it('refuses bad arguments at once', () => {
    const body = pipe();
    const on = () => undefined as never;
    expect(() => loopOnDevice(42 as never, { while: on })).toThrow(TypeError);
    expect(() => loopOnDevice(body, {} as never)).toThrow(TypeError);
    for (const maxIterations of [0, -1, 1.5, 2 ** 31]) expect(() => loopOnDevice(body, { while: on, maxIterations }), `${maxIterations}`).toThrow(RangeError);
    expect(() => loopOnDevice(body, { while: on, maxIterations: 2 ** 31 - 1 })).not.toThrow();
    expect(() => branchOnDevice(on, [])).toThrow(RangeError);
    expect(() => branchOnDevice(on, [body, body, body], { test: '> 0' })).toThrow(RangeError);
    expect(() => branchOnDevice(on, [body, body, body])).not.toThrow();
  });

  it('refuses a host step inside a replayed body with a GraphError (reason body)', async () => {
    type W = Work<number, { readonly input: DeviceArray<'u32'> }, unknown>;
    const inBody = pipe(launch(kernels.countDown, (w: W) => ({ config: ONE, args: [w.buffers.input, 0] })), host(() => {}));
    for (const control of [
      loopOnDevice(inBody, { while: (w: W) => w.buffers.input }),
      branchOnDevice((w: W) => w.buffers.input, [inBody]),
    ]) {
      const error = await firstValueFrom(
        range(0, 4).pipe(
          onStreams(device, { lanes: 2 }),
          replay(pipe(upload((i: number) => Uint32Array.of(1 + (i % 2), 0)), control, download((w: W) => w.buffers.input, 'out'))),
          toArray(),
        ),
      ).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(PipelineError);
      const cause = (error as PipelineError).cause;
      expect(cause).toBeInstanceOf(GraphError);
      expect((cause as GraphError).reason).toBe('body');
      expect((cause as GraphError).message).toMatch(/A host step .* cannot be in (loopOnDevice|branchOnDevice)'s body/);
    }
  });

  it('loops while a host array says so (the body copies the counter into it), eager and replayed, every result exact', async () => {
    const { countDown } = kernels;
    const count = 60;
    const start = (i: number): Start => ({ i, k: i % 6, acc: i });
    const expected = Array.from({ length: count }, (_, i) => [i, countdown(i % 6, i, 2)]);
    for (const mode of ['eager', 'replayed'] as const) {
      const words = device.allocHost('u32', count); // a word per value: the values' loops run at once
      const word = (w: Counting) => words.subarray(w.value.i, w.value.i + 1);
      const note = enqueue((w: Counting, stream) => void stream.copy(word(w), w.buffers.input.subarray(0, 1)));
      const work = pipe(
        upload((v: Start) => Uint32Array.of(v.k, v.acc)),
        note as never,
        loopOnDevice(pipe(launch(countDown, (w: Counting) => ({ config: ONE, args: [w.buffers.input, 2] })), note as never), { while: word }) as never,
        download((w: Counting) => w.buffers.input, 'out'),
      );
      const results = await collect(range(0, count).pipe(map(start), onStreams(device, { lanes: 2 }), mode === 'replayed' ? replay(work) : work));
      expect(results, mode).toEqual(expected);
      words.close();
    }
  });

  it('runs a loopOnDevice nested in another\'s body with the same exact results, replayed and eager', async () => {
    const { addAt } = kernels;
    type W = Work<number, { readonly input: DeviceArray<'i32'> }, unknown>;
    // s = [outer counter, inner iterations, inner counter, outer iterations]: each outer iteration
    // counts down once and runs the inner loop, whose counter starts at i % 4 and is set again to 2.
    const add = (at: number, amount: number) => launch(addAt, (w: W) => ({ config: ONE, args: [w.buffers.input, at, amount] }));
    const inner = loopOnDevice(pipe(add(2, -1), add(1, 1)), { while: (w: W) => w.buffers.input.subarray(2) });
    const outer = loopOnDevice(pipe(add(0, -1), add(3, 1), inner, add(2, 2)), { while: (w: W) => w.buffers.input });
    const work = pipe(upload((i: number) => Int32Array.of(i % 5, 0, i % 4, 0)), outer as never, download((w: W) => w.buffers.input, 'out'));
    const count = 40;
    // The first outer iteration runs i % 4 inner ones, each later one 2.
    const expected = Array.from({ length: count }, (_, i) => {
      const outerRuns = i % 5;
      const innerRuns = outerRuns === 0 ? 0 : (i % 4) + 2 * (outerRuns - 1);
      return [i, [0, innerRuns, outerRuns === 0 ? i % 4 : 2, outerRuns]];
    });
    for (const replayed of [true, false]) {
      const results = await collect(range(0, count).pipe(onStreams(device, { lanes: 2 }), replayed ? replay(work) : work));
      expect(results, replayed ? 'replayed' : 'eager').toEqual(expected);
    }
  });

  const newPool = lanePools(() => device);
  it('lets go of a value mid-loop on the host when the pipeline is unsubscribed: it completes, the pool holds nothing, and the next pipeline runs', async () => {
    const pool = newPool({ lanes: 1, inFlight: 2 });
    // Value 0 counts down from 1; the others from a million, one iteration per round trip: value 1
    // is mid-loop when take(1) unsubscribes.
    const pipeline = (count: number, k: (i: number) => number) =>
      range(0, count).pipe(
        map((i): Start => ({ i, k: k(i), acc: i })),
        onStreams(pool),
        upload((v: Start) => Uint32Array.of(v.k, v.acc)),
        loopOnDevice(pipe(launch(kernels.countDown, (w: Counting) => ({ config: ONE, args: [w.buffers.input, 0] }))), { while: (w) => w.buffers.input }) as never,
        download((w: Counting) => w.buffers.input, 'out'),
      ) as Observable<Work<Start, unknown, { readonly out: ArrayLike<number> }>>;
    const first = await firstValueFrom(pipeline(4, (i) => (i === 0 ? 1 : 1_000_000)).pipe(take(1), map((w) => [w.index, Array.from(w.results.out)]), toArray()));
    expect(first).toEqual([[0, countdown(1, 0, 0)]]);
    await vi.waitFor(() => expect(pool.stats).toMatchObject({ inFlight: 0, buffersInUse: 0 }), { timeout: 2000 });
    const next = await collect(pipeline(6, (i) => i % 4));
    expect(next).toEqual(Array.from({ length: 6 }, (_, i) => [i, countdown(i % 4, i, 0)]));
    expect(pool.stats).toMatchObject({ inFlight: 0, buffersInUse: 0 });
  });
});
