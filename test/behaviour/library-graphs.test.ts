// Library calls in graphs: captured by stream.capture and recorded by the replay operator, they
// give what the same calls give eagerly (on CUDA each is a child-graph node captured natively; on
// the host device a node that runs the CPU reference again).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { firstValueFrom, map, pipe, range, toArray } from 'rxjs';
import { Builtins, REPLAY_EAGER_WARNING, download as downloadOp, enqueue, fft, gemm, onStreams, replay, upload as uploadOp, type Device, type Stream, type Work } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { streamsPerTest } from '../support/streams.js';
import { EPSILON, download, fftBound, norm, outside, referenceGemm, upload, values } from '../support/libraries.js';

const [M, N, K] = [24, 64, 40]; // each row of C is a signal of N points

describeBackends('library calls in graphs', (getDevice, backend) => {
  const stream = streamsPerTest(getDevice);
  const warnings: string[] = [];
  const listen = (warning: Error & { code?: string }) => void (warning.code === REPLAY_EAGER_WARNING && warnings.push(warning.message));
  beforeEach(() => {
    warnings.length = 0;
    process.on('warning', listen);
  });
  afterEach(() => void process.off('warning', listen));

  /** gemm, then the spectra of C's rows, then a kernel that halves them: on `s`, eagerly or captured. */
  function work(s: Stream, builtins: Builtins, arrays: ReturnType<typeof arraysOn>) {
    s.device.blas.gemm(s, arrays.a, arrays.b, arrays.c, { m: M, n: N, k: K });
    s.device.fft.r2c(s, arrays.c, arrays.spectra, { shape: N, batch: M });
    builtins.scale(s, arrays.spectra, arrays.spectra, 0.5);
  }

  function arraysOn(s: Stream, seed: number) {
    const [a, b] = [values('f32', M * K, seed), values('f32', K * N, seed + 1)];
    return { a: upload(s, 'f32', a), b: upload(s, 'f32', b), c: s.alloc('f32', M * N), spectra: s.alloc('f32', M * (N / 2 + 1) * 2), host: { a, b } };
  }

  /** Eager and graph results agree exactly on the host device, within the stated bounds on a GPU. */
  function expectSame(graph: number[], eager: number[], what: string) {
    if (backend === 'host') return expect(graph, what).toEqual(eager);
    const bound = fftBound(N, EPSILON.f32, norm(eager));
    expect(outside(graph, eager, eager.map(() => bound)), what).toEqual([]);
  }

  it('captured into a graph, give what the eager calls give, launch after launch', async () => {
    const s = stream();
    const builtins = await Builtins.for(s.device);
    const [eager, captured] = [arraysOn(s, 1), arraysOn(s, 1)];
    work(s, builtins, eager);
    const want = await download(s, eager.spectra);
    using graph = await s.capture((c) => work(c, builtins, captured));
    expect(graph.nodes.map((n) => n.kind)).toEqual(['library', 'library', 'kernel']);
    using exec = graph.instantiate();
    exec.launch(s);
    expectSame(await download(s, captured.spectra), want, 'first launch');
    // New data in A: the graph reads it at its next launch.
    const other = values('f32', M * K, 9);
    s.copy(captured.a, upload(s, 'f32', other));
    exec.launch(s);
    const product = referenceGemm({ m: M, n: N, k: K }, other, captured.host.b, Array(M * N).fill(0), EPSILON.f32, EPSILON.f32);
    const gemmOnly = s.alloc('f32', M * N);
    s.device.blas.gemm(s, captured.a, captured.b, gemmOnly, { m: M, n: N, k: K });
    expect(outside(await download(s, gemmOnly), product.out, product.bound)).toEqual([]);
    expectSame(await download(s, captured.c), await download(s, gemmOnly), 'C after new data');
  });

  it('captures a transform whose plan is made in the capture', async () => {
    const s = stream();
    const n = 3 * 5 * 7 * 11; // a size no other test plans
    const x = values('f32', 2 * n, 4);
    const [input, eagerOut, graphOut] = [upload(s, 'f32', x), s.alloc('f32', 2 * n), s.alloc('f32', 2 * n)];
    using graph = await s.capture((c) => c.device.fft.c2c(c, input, graphOut, { shape: n }));
    using exec = graph.instantiate();
    exec.launch(s);
    s.device.fft.c2c(s, input, eagerOut, { shape: n });
    expectSame(await download(s, graphOut), await download(s, eagerOut), 'transform');
  });

  it('take new scalars by an update, and refuse one whose alpha becomes 0 naming the change', async () => {
    const s = stream();
    const [a, b, c] = [s.alloc('f32', 16), s.alloc('f32', 16), s.alloc('f32', 16)];
    s.fill(a, 1);
    s.fill(b, 1);
    const record = (options: { alpha: number; transB?: boolean }) => s.capture((g) => g.device.blas.gemm(g, a, b, c, { m: 4, n: 4, k: 4, ...options }));
    using first = await record({ alpha: 1 });
    using exec = first.instantiate();
    using doubled = await record({ alpha: 2 });
    exec.update(doubled);
    exec.launch(s);
    expect(await download(s, c)).toEqual(Array(16).fill(8));
    using zero = await record({ alpha: 0 });
    const topology = expect.objectContaining({ name: 'GraphError', reason: 'topology' });
    expect(() => exec.update(zero)).toThrow(topology);
    expect(() => exec.update(zero)).toThrow(/node 0 is gemm \(f32, 4×4×4\) with alpha 2 → 0 \(cuBLAS runs other kernels where alpha or beta is 0/);
    using transposed = await record({ alpha: 1, transB: true });
    expect(() => exec.update(transposed)).toThrow(/node 0 is gemm \(f32, 4×4×4\) with transB false → true$/);
    s.fill(c, 0);
    exec.launch(s); // the refused updates changed nothing
    expect(await download(s, c)).toEqual(Array(16).fill(8));
  });

  it('refuse an update that turns a transform the other way, naming the direction', async () => {
    const s = stream();
    const [x, y] = [s.alloc('f32', 16), s.alloc('f32', 16)];
    const record = (direction: 'forward' | 'inverse') => s.capture((g) => g.device.fft.c2c(g, x, y, { shape: 8, direction }));
    using forward = await record('forward');
    using exec = forward.instantiate();
    using inverse = await record('inverse');
    expect(() => exec.update(inverse)).toThrow(/node 0 is c2c \(f32, 8\) with direction forward → inverse$/);
  });

  it('replayed by the replay operator, give the eager pipeline\'s results, with alpha changing per value', async () => {
    const device: Device = getDevice();
    const weights = values('f32', K * N, 2);
    const s = stream();
    const w = upload(s, 'f32', weights);
    await s.synchronized();
    const work = pipe(
      enqueue((v: Work<Float32Array>) => [v.device('f32', M * N, 'y'), v.device('f32', M * (N / 2 + 1) * 2, 'spectra')], 'outputs'),
      uploadOp((x) => x, 'x'),
      gemm((v) => ({ a: v.buffers.x, b: w, c: v.buffers.y, m: M, n: N, k: K, alpha: (v.index % 3) + 1 })),
      fft((v) => ({ kind: 'r2c', input: v.buffers.y, output: v.buffers.spectra, shape: N, batch: M })),
      downloadOp((v) => v.buffers.spectra, 'spectra'),
    );
    const run = (replayed: boolean) =>
      firstValueFrom(
        range(0, backend === 'cuda' ? 40 : 12).pipe(
          map((i) => Float32Array.from(values('f32', M * K, 100 + i))),
          onStreams(device, { lanes: 2 }),
          replayed ? replay(work) : work,
          map((v) => [v.index, [...v.results.spectra]] as const),
          toArray(),
        ),
      ).then((results) => new Map(results));
    const [eager, replayed] = [await run(false), await run(true)];
    expect([...replayed.keys()].sort((a, b) => a - b)).toEqual([...eager.keys()].sort((a, b) => a - b));
    for (const [index, spectra] of eager) expectSame([...replayed.get(index)!], [...spectra], `value ${index}`);
    expect(warnings).toEqual([]);
  });
});
