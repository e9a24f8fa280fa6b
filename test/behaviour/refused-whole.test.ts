// Work refused as a whole, before anything is enqueued (issue 27's wrong results and silent
// acceptance): a graph node's configuration is checked when it is set, so that a graph launch runs
// all of its nodes or none; a refused launch counts as nothing enqueued; copies whose two sides
// overlap are refused on both backends, with the byte ranges in the message.
import { beforeAll, expect, it } from 'vitest';
import type { DeviceArray, Device, Kernel } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { streamsPerTest } from '../support/streams.js';
import { testKernels } from '../support/kernels.js';

const one = { grid: 1, block: 1 };
/** One byte more dynamic shared memory than a kernel may ask for without opting in. */
const TOO_MUCH = { grid: 1, block: 1, sharedMem: 49153 };
const sharedRefused = /^Expected `sharedMem` to be at most 49152 bytes for kernel store \(up to \d+ once it opts in with setMaxDynamicSharedMemory\), got 49153$/;

describeBackends('work refused as a whole', (getDevice) => {
  let device: Device;
  let store: Kernel<readonly ['ptr', 'u32']>;
  beforeAll(async () => {
    device = getDevice();
    ({ store } = await testKernels(device));
  });
  const stream = streamsPerTest(() => device);

  /** The first element of each of `arrays`, read back on `s`. */
  async function firsts(s: ReturnType<typeof stream>, ...arrays: DeviceArray<'u32'>[]): Promise<number[]> {
    const host = device.allocHost('u32', arrays.length);
    arrays.forEach((m, i) => s.copy(host.subarray(i, i + 1), m.subarray(0, 1)));
    await s.synchronized();
    return [...host.data];
  }

  it("refuses a kernel node's shared memory past the kernel's limit when it is set, and the launch then runs every node", async () => {
    const s = stream();
    const [a, b, c] = [s.alloc('u32', 1), s.alloc('u32', 1), s.alloc('u32', 1)];
    for (const m of [a, b, c]) s.fill(m, 0);
    const graph = device.createGraph();
    const n1 = graph.addFill(a, 11);
    const n2 = graph.addKernel(store, one, [b, 22], { after: [n1] });
    graph.addFill(c, 33, { after: [n2] });
    expect(() => graph.addKernel(store, TOO_MUCH, [b, 1])).toThrow(sharedRefused);
    expect(graph.nodes).toHaveLength(3); // nothing added
    const exec = graph.instantiate();
    expect(() => exec.setArgs(n2, [b, 23], TOO_MUCH)).toThrow(sharedRefused);
    exec.launch(s); // the node keeps its arguments: all three nodes run
    expect(await firsts(s, a, b, c)).toEqual([11, 22, 33]);
    exec.close();
    graph.close();
  });

  it('counts a launch refused for its shared memory as nothing enqueued, and runs nothing', async () => {
    const s = stream();
    const out = s.alloc('u32', 1);
    s.fill(out, 0);
    await s.synchronized();
    const before = s.engine.given;
    expect(() => s.launch(store, TOO_MUCH, [out, 5])).toThrow(sharedRefused);
    expect(s.engine.given).toBe(before);
    expect(await firsts(s, out)).toEqual([0]);
  });

  it('refuses copies between overlapping views of device memory, and onto itself, naming the bytes', () => {
    const s = stream();
    const x = s.alloc('u32', 8);
    const before = s.engine.given;
    expect(() => s.copy(x.subarray(0, 4), x.subarray(2, 6))).toThrow(
      new RangeError('Expected `src` to be memory apart from `dst` (bytes [0, 16) of its allocation), got bytes [8, 24) of the same allocation, which overlap them'),
    );
    expect(() => s.copy(x, x)).toThrow(
      new RangeError('Expected `src` to be memory apart from `dst` (bytes [0, 32) of its allocation), got bytes [0, 32) of the same allocation, which overlap them'),
    );
    expect(s.engine.given).toBe(before);
  });

  it('refuses copies between overlapping views of pinned memory, and graph copies that overlap', () => {
    const s = stream();
    const host = device.allocHost('u32', 8);
    expect(() => s.copy(host.subarray(3, 7), host.subarray(1, 5))).toThrow(
      new RangeError('Expected `src` to be memory apart from `dst` (bytes [12, 28) of its allocation), got bytes [4, 20) of the same allocation, which overlap them'),
    );
    const graph = device.createGraph();
    const x = s.alloc('u32', 8);
    expect(() => graph.addCopy(x.subarray(4, 8), x.subarray(1, 5))).toThrow(RangeError);
    expect(graph.nodes).toHaveLength(0);
    graph.close();
  });

  it('copies between adjacent views of one allocation', async () => {
    const s = stream();
    const host = device.allocHost('u32', 8);
    host.data.set([1, 2, 3, 4, 5, 6, 7, 8]);
    const x = s.alloc('u32', 8);
    s.copy(x, host);
    s.copy(x.subarray(4, 8), x.subarray(0, 4));
    s.copy(host, x);
    await s.synchronized();
    expect([...host.data]).toEqual([1, 2, 3, 4, 1, 2, 3, 4]);
  });
});
