// The copies rxcuda keeps of a launch's arguments (a graph's kernel node, a captured launch, a
// launch queued behind a host step) are plain arrays read once: an array whose species makes
// another kind of copy (one that iterates as empty, say) is never asked, so that the memory a node
// addresses is the memory it holds, and the results are the kernel's.
import { expect, it } from 'vitest';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';
import { streamsPerTest } from '../support/streams.js';

const N = 256;

/** `items`, whose `slice()` would make its copy with a constructor that counts its calls into `made`. */
function withSpecies(items: unknown[], made: { count: number }): never {
  function Copy(): unknown[] {
    made.count++;
    const copy: unknown[] = [];
    (copy as unknown as Record<symbol, unknown>)[Symbol.iterator] = function* () {}; // iterates as empty
    return copy;
  }
  (items as unknown as { constructor: unknown }).constructor = { [Symbol.species]: Copy };
  return items as never;
}

describeBackends('kernel arguments kept', (getDevice) => {
  const stream = streamsPerTest(getDevice);

  it('keeps a graph node\'s, an executable\'s and a captured launch\'s arguments as plain copies', async () => {
    const device = getDevice();
    const { addU32 } = await testKernels(device);
    const s = stream();
    const made = { count: 0 };
    const x = s.alloc('u32', N);
    s.fill(x, 0);
    const graph = device.createGraph();
    const node = graph.addKernel(addU32, { grid: 1, block: N }, withSpecies([x, 1, N], made));
    const captured = await s.capture((c) => c.launch(addU32, { grid: 1, block: N }, withSpecies([x, 10, N], made)));
    const exec = graph.instantiate();
    exec.setArgs(node, withSpecies([x, 100, N], made));
    const replay = captured.instantiate();
    graph.close();
    captured.close();
    x.close(); // the executables hold its memory
    exec.launch(s);
    replay.launch(s);
    await s.synchronized();
    exec.close();
    replay.close();
    expect(made.count).toBe(0);
  });

  it('keeps a launch queued behind a host step as a plain copy, and runs it', async () => {
    const device = getDevice();
    const { addU32 } = await testKernels(device);
    const s = stream();
    const made = { count: 0 };
    const x = s.alloc('u32', N);
    const out = device.allocHost('u32', N);
    s.fill(x, 0);
    s.hostLaunch(() => new Promise<void>((resolve) => setTimeout(resolve, 10)));
    s.launch(addU32, { grid: 1, block: N }, withSpecies([x, 7, N], made));
    s.copy(out, x);
    await s.synchronized();
    expect(made.count).toBe(0);
    expect([...out.data]).toEqual(Array(N).fill(7));
    x.close();
    out.close();
  });

  /** `[first, …rest]` whose element 0 is `first` on the first read and `later` on every read after it. */
  function changingFirst(first: unknown, later: unknown, rest: unknown[]): never {
    let reads = 0;
    return new Proxy([first, ...rest], {
      get: (target, key, receiver) => (key === '0' ? (reads++ === 0 ? first : later) : Reflect.get(target, key, receiver)),
    }) as never;
  }

  it('launches what it packed from an argument array read once, queued behind a step and captured alike', async () => {
    const device = getDevice();
    const { addU32 } = await testKernels(device);
    const s = stream();
    const [a, b, c, d] = [s.alloc('u32', N), s.alloc('u32', N), s.alloc('u32', N), s.alloc('u32', N)];
    for (const x of [a, b, c, d]) s.fill(x, 0);
    const out = device.allocHost('u32', 4 * N);
    s.hostLaunch(() => new Promise<void>((resolve) => setTimeout(resolve, 10)));
    s.launch(addU32, { grid: 1, block: N }, changingFirst(a, b, [3, N])); // queued behind the step
    const captured = await s.capture((t) => t.launch(addU32, { grid: 1, block: N }, changingFirst(c, d, [5, N])));
    const exec = captured.instantiate();
    captured.close();
    exec.launch(s);
    [a, b, c, d].forEach((x, i) => s.copy(out.subarray(i * N, (i + 1) * N), x));
    await s.synchronized();
    exec.close();
    expect([0, 1, 2, 3].map((i) => out.data[i * N])).toEqual([3, 0, 5, 0]);
    for (const x of [a, b, c, d, out]) x.close();
  });
});
