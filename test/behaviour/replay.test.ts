// The replay operator: each value's device work launched as a graph, with the same results as
// the eager pipeline, and values of another shape enqueued as given and said once.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { firstValueFrom, map, pipe, range, toArray } from 'rxjs';
import { REPLAY_EAGER_WARNING, Timeline, download, host, launch, onStreams, replay, upload, type Device } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';

const N = 256;
const frame = (i: number, n = N) => Uint32Array.from({ length: n }, (_, j) => (i * 7 + j) >>> 0);
const expected = (i: number, n = N) => [...frame(i, n)].map((v) => ~(v + 3 + i) >>> 0);

describeBackends('replay', (getDevice, backend) => {
  const warnings: string[] = [];
  const listen = (warning: Error & { code?: string }) => {
    if (warning.code === REPLAY_EAGER_WARNING) warnings.push(warning.message);
  };
  beforeEach(() => {
    warnings.length = 0;
    process.on('warning', listen);
  });
  afterEach(() => void process.off('warning', listen));

  async function run(device: Device, count: number, replayed: boolean, size: (i: number) => number = () => N, timeline?: Timeline) {
    const { addU32, invert } = await testKernels(device);
    const steps: number[] = [];
    const work = pipe(
      upload((v: { i: number; data: Uint32Array }) => v.data),
      launch(addU32, (w) => ({ config: { grid: 1, block: N }, args: [w.buffers.input, 3, w.value.data.length] })),
      host((w) => void steps.push(w.index)),
      launch(addU32, (w) => ({ config: { grid: 1, block: N }, args: [w.buffers.input, w.value.i, w.value.data.length] })),
      launch(invert, (w) => ({ config: { grid: 1, block: N }, args: [w.buffers.input, w.value.data.length] })),
      download((w) => w.buffers.input, 'out'),
    );
    const results = await firstValueFrom(
      range(0, count).pipe(
        map((i) => ({ i, data: frame(i, size(i)) })),
        onStreams(device, { lanes: 2, ...(timeline ? { timeline } : {}) }),
        replayed ? replay(work) : work,
        map((w) => [w.index, [...w.results.out]] as const),
        toArray(),
      ),
    );
    return { results: new Map(results), steps };
  }

  it('gives the eager pipeline\'s results, value by value, with host steps in between', async () => {
    const device = getDevice();
    const count = backend === 'cuda' ? 500 : 60;
    const eager = await run(device, count, false);
    const replayed = await run(device, count, true);
    expect(replayed.results.size).toBe(count);
    for (let i = 0; i < count; i++) expect(replayed.results.get(i), `value ${i}`).toEqual(expected(i));
    expect(replayed.results).toEqual(eager.results);
    expect([...replayed.steps].sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i));
    expect(warnings).toEqual([]);
  });

  it('enqueues a value of another shape as given, says so once, and its results are right', async () => {
    const device = getDevice();
    const timeline = new Timeline();
    const size = (i: number) => (i === 5 || i === 9 ? N / 2 : N);
    const { results } = await run(device, 12, true, size, timeline);
    for (let i = 0; i < 12; i++) expect(results.get(i), `value ${i}`).toEqual(expected(i, size(i)));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/replay enqueued a value's work as given: its operation 0 is a copy of 512 bytes where the graph copies 1024/);
    const notes = timeline.spans().filter((s) => s.stage.startsWith('replay: enqueued as given'));
    expect(notes.map((s) => s.index).sort((a, b) => a - b)).toEqual([5, 9]);
  });

  // A steady pipeline's values come round to the pool's buffers again, and launch an executable
  // that holds their work already; values whose scalars differ from it take the recorded road.
  async function steady(device: Device, count: number, replayed: boolean, scalar: (i: number) => number) {
    const { addU32, invert } = await testKernels(device);
    const work = pipe(
      upload((v: { i: number; data: Uint32Array }) => v.data),
      launch(addU32, (w) => ({ config: { grid: 1, block: N }, args: [w.buffers.input, 3, N] })),
      launch(addU32, (w) => ({ config: { grid: 1, block: N }, args: [w.buffers.input, scalar(w.value.i), N] })),
      launch(invert, (w) => ({ config: { grid: 1, block: N }, args: [w.buffers.input, N] })),
      download((w) => w.buffers.input, 'out'),
    );
    return firstValueFrom(
      range(0, count).pipe(
        map((i) => ({ i, data: frame(i) })),
        onStreams(device, { lanes: 2, inFlight: 4 }),
        replayed ? replay(work) : work,
        map((w) => [w.index, [...w.results.out]] as const),
        toArray(),
      ),
    ).then((results) => new Map(results));
  }

  it("gives each value its own data when its work is what an executable holds already", async () => {
    const device = getDevice();
    const count = backend === 'cuda' ? 2000 : 300;
    const results = await steady(device, count, true, () => 7);
    expect(results.size).toBe(count);
    for (let i = 0; i < count; i++) expect(results.get(i), `value ${i}`).toEqual([...frame(i)].map((v) => ~(v + 3 + 7) >>> 0));
    expect(warnings).toEqual([]);
  });

  it("gives the eager pipeline's results when values' scalars come and go", async () => {
    const device = getDevice();
    const count = backend === 'cuda' ? 2000 : 300;
    const scalar = (i: number) => [5, 5, 9, 5, 11][i % 5]!;
    const [eager, replayed] = [await steady(device, count, false, scalar), await steady(device, count, true, scalar)];
    expect(replayed.size).toBe(count);
    expect(replayed).toEqual(eager);
    for (const i of [0, 2, 4, count - 1]) expect(replayed.get(i), `value ${i}`).toEqual([...frame(i)].map((v) => ~(v + 3 + scalar(i)) >>> 0));
  });

  it('gives each value the bytes of its struct argument, one array written anew for every value', async () => {
    const device = getDevice();
    const count = backend === 'cuda' ? 1000 : 200;
    const module = await device.compile('struct Pair { unsigned a, b; };\nextern "C" __global__ void add_pair(unsigned* x, Pair p, unsigned n) {\n  unsigned i = threadIdx.x;\n  if (i < n) x[i] += p.a * 1000 + p.b;\n}');
    const addPair = module.kernel('add_pair', ['ptr<u32>', { struct: 8, align: 4 }, 'u32'], {
      cpu: (_, [x, p, n]) => {
        const [a, b] = ArrayBuffer.isView(p) ? new Uint32Array(p.buffer, p.byteOffset, 2) : new Uint32Array(p, 0, 2);
        for (let i = 0; i < n; i++) x[i] = (x[i]! + a! * 1000 + b!) >>> 0;
      },
    });
    const pair = new Uint32Array(2); // the same array for every launch: its bytes are what differs
    const results = await firstValueFrom(
      range(0, count).pipe(
        onStreams(device, { lanes: 2 }),
        replay(pipe(
          upload((i: number) => frame(i)),
          launch(addPair, (w) => (pair.set([w.index % 7, 3]), { config: { grid: 1, block: N }, args: [w.buffers.input, pair, N] })),
          download((w) => w.buffers.input, 'out'),
        )),
        map((w) => [w.index, [...w.results.out]] as const),
        toArray(),
      ),
    );
    expect(results).toHaveLength(count);
    for (const [i, out] of results) expect(out, `value ${i}`).toEqual([...frame(i)].map((v) => (v + (i % 7) * 1000 + 3) >>> 0));
    expect(warnings).toEqual([]);
  });

  it('refuses a non-function operator at once', () => {
    expect(() => replay(42 as never)).toThrow(/Expected `operator` to be an operator function/);
  });
});
