// Graphs: capture, explicit building, replay with JavaScript steps, parameter updates, lifetimes
// and the errors for bad input, on both backends (the host device replays a command list).
import { describe, expect, it } from 'vitest';
import { Device, Graph, GraphError, GraphExec, onLaunch, type DeviceArray, type HostArray, type Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';
import { streamsPerTest } from '../support/streams.js';
import { collectUntil } from '../support/gc.js';
import { helpers } from '../support/helpers.js';

const N = 256;
const ADDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

describeBackends('Stream.capture', (getDevice, backend) => {
  const stream = streamsPerTest(getDevice);

  async function read(s: Stream, array: DeviceArray<'u32'>): Promise<number[]> {
    const host = s.device.allocHost('u32', array.length);
    s.copy(host, array);
    await s.synchronized();
    const values = [...host.data];
    host.close();
    return values;
  }

  it('replays a 10-kernel chain with a JavaScript step in the middle, exactly, on 4 streams', async () => {
    const device = getDevice();
    const { addU32 } = await testKernels(device);
    const rounds = backend === 'cuda' ? 1000 : 100;
    const lanes = Array.from({ length: 4 }, () => stream());
    const firstHalf = ADDS.slice(0, 5).reduce((a, b) => a + b);
    const whole = ADDS.reduce((a, b) => a + b);
    const seen: number[][] = lanes.map(() => []);
    const execs: GraphExec[] = [];
    const arrays: DeviceArray<'u32'>[] = [];
    for (const [k, s] of lanes.entries()) {
      const x = s.alloc('u32', N);
      const middle: HostArray<'u32'> = device.allocHost('u32', 1);
      s.fill(x, 0);
      arrays.push(x);
      const graph = await s.capture((c) => {
        for (const value of ADDS.slice(0, 5)) c.launch(addU32, { grid: 1, block: N }, [x, value, N]);
        c.copy(middle, x.subarray(0, 1));
        c.hostLaunch(() => void seen[k]!.push(middle.data[0]!));
        for (const value of ADDS.slice(5)) c.launch(addU32, { grid: 1, block: N }, [x, value, N]);
      });
      expect(graph.nodes.map((n) => n.kind)).toEqual([...Array(5).fill('kernel'), 'copy', ...Array(5).fill('kernel')]);
      expect(graph.steps).toBe(1);
      execs.push(graph.instantiate());
      graph.close();
    }
    for (let round = 0; round < rounds; round++) for (const [k, s] of lanes.entries()) execs[k]!.launch(s);
    for (const [k, s] of lanes.entries()) {
      const values = await read(s, arrays[k]!);
      expect(values).toEqual(Array(N).fill(rounds * whole));
      expect(seen[k]).toEqual(Array.from({ length: rounds }, (_, i) => i * whole + firstHalf));
    }
    execs.forEach((e) => e.close());
  });

  it('runs nothing while capturing, and the launch runs it in stream order', async () => {
    const device = getDevice();
    const { addU32 } = await testKernels(device);
    const s = stream();
    const x = s.alloc('u32', N);
    s.fill(x, 7);
    const graph = await s.capture(async (c) => {
      c.fill(x, 1);
      await new Promise((r) => setTimeout(r, 5));
      c.launch(addU32, { grid: 1, block: N }, [x, 2, N]);
    });
    expect(await read(s, x)).toEqual(Array(N).fill(7));
    const exec = graph.instantiate();
    exec.launch(s);
    s.launch(addU32, { grid: 1, block: N }, [x, 10, N]);
    expect(await read(s, x)).toEqual(Array(N).fill(13));
    exec.close();
    graph.close();
  });

  it('runs onLaunch hooks when a launch is captured, not at each launch of the executable', async () => {
    const device = getDevice();
    const { addU32 } = await testKernels(device);
    const s = stream();
    const x = s.alloc('u32', N);
    s.fill(x, 0);
    const seen: string[] = [];
    using _hook = onLaunch((launch) => void seen.push(launch.kernel.name));
    const graph = await s.capture((c) => c.launch(addU32, { grid: 1, block: N }, [x, 1, N]));
    const exec = graph.instantiate();
    for (let i = 0; i < 3; i++) exec.launch(s);
    expect(await read(s, x)).toEqual(Array(N).fill(3));
    expect(seen).toEqual(['add_u32']);
    exec.close();
    graph.close();
  });

  it('takes new kernel arguments and configurations for later launches', async () => {
    const device = getDevice();
    const { addU32 } = await testKernels(device);
    const s = stream();
    const [x, y] = [s.alloc('u32', N), s.alloc('u32', N)];
    s.fill(x, 0);
    s.fill(y, 100);
    const graph = await s.capture((c) => c.launch(addU32, { grid: 1, block: N }, [x, 1, N]));
    const exec = graph.instantiate();
    const [node] = graph.nodesOf(addU32);
    expect(node).toBe(graph.nodes[0]);
    exec.launch(s);
    exec.setArgs(node!, [x, 5, N]);
    exec.launch(s);
    exec.setArgs(node!, [y, 3, N / 2], { grid: 1, block: N / 2 });
    // @ts-expect-error: a string where the kernel's u32 is: setArgs is typed by the node's signature
    expect(() => exec.setArgs(node!, [x, 'five', N])).toThrow(TypeError);
    exec.launch(s);
    expect(await read(s, x)).toEqual(Array(N).fill(6));
    expect(await read(s, y)).toEqual([...Array(N / 2).fill(103), ...Array(N / 2).fill(100)]);
    exec.close();
    graph.close();
  });

  it('updates a whole executable from a graph of the same topology, and refuses another', async () => {
    const device = getDevice();
    const { addU32, invert } = await testKernels(device);
    const s = stream();
    const [x, y] = [s.alloc('u32', N), s.alloc('u32', N)];
    s.fill(x, 0);
    s.fill(y, 0);
    const capture = (array: DeviceArray<'u32'>, value: number) =>
      s.capture((c) => {
        c.fill(array, value);
        c.launch(addU32, { grid: 1, block: N }, [array, value, N]);
      });
    const [first, second] = [await capture(x, 1), await capture(y, 20)];
    const exec = first.instantiate();
    exec.update(second);
    exec.launch(s);
    expect(await read(s, x)).toEqual(Array(N).fill(0));
    expect(await read(s, y)).toEqual(Array(N).fill(40));
    const other = await s.capture((c) => {
      c.fill(x, 1);
      c.launch(invert, { grid: 1, block: N }, [x, N]);
    });
    expect(() => exec.update(other)).toThrow(expect.objectContaining({ name: 'GraphError', reason: 'topology' }));
    expect(() => exec.update(other)).toThrow(/node 1 is kernel invert where the graph launches add_u32/);
    expect(() => exec.setArgs(first.nodes[0]! as never, [x, 1, N] as never)).toThrow(/Expected `node` to be a kernel node, got a fill node/);
    exec.launch(s); // still the second graph's parameters
    expect(await read(s, y)).toEqual(Array(N).fill(40));
    [exec, first, second, other].forEach((o) => o.close());
  });

  it('ends a capture that does what a graph cannot hold, and leaves the stream usable', async () => {
    const s = stream();
    const x = s.alloc('u32', N);
    s.fill(x, 3);
    const forbidden: [string, (c: Stream) => unknown][] = [
      ['synchronized', (c) => c.synchronized()],
      ['onDone', (c) => c.onDone(() => {})],
      ['query', (c) => c.query()],
      ['alloc', (c) => c.alloc('u32', 4)],
      ['close', (c) => c.close()],
    ];
    for (const [what, call] of forbidden) {
      let thrown: unknown;
      const captured = s.capture((c) => {
        c.fill(x, 9);
        try {
          call(c);
        } catch (error) {
          thrown = error;
        }
        c.fill(x, 10); // refused too: the capture has ended
      });
      await expect(captured, what).rejects.toMatchObject({ name: 'GraphError', reason: 'forbidden' });
      expect(thrown, what).toBeInstanceOf(GraphError);
      expect(String((thrown as Error).message), what).toMatch(/cannot be captured into a graph/);
    }
    await expect(s.capture(() => { throw new RangeError('mine'); })).rejects.toThrow('mine');
    expect(s.closed).toBe(false);
    expect(await read(s, x)).toEqual(Array(N).fill(3));
    s.fill(x, 4);
    expect(await read(s, x)).toEqual(Array(N).fill(4));
  });

  it('refuses a capture on a capturing stream and a capture inside another', async () => {
    const s = stream();
    const t = stream();
    let again: unknown, nested: unknown;
    const graph = await s.capture(async () => {
      try {
        await s.capture(() => {});
      } catch (error) {
        again = error;
      }
      try {
        await t.capture(() => {});
      } catch (error) {
        nested = error;
      }
    });
    expect(again).toMatchObject({ name: 'GraphError', reason: 'capturing' });
    expect(nested).toMatchObject({ name: 'GraphError', reason: 'nested' });
    expect(() => s.capture(42 as never)).toThrow(/Expected `fn` to be a function/);
    // Not nested: a capture of another stream started from outside, meanwhile.
    const inner = await Promise.all([t.capture(() => {}), s.capture(() => {})]);
    inner.forEach((g) => g.close());
    graph.close();
  });

  it('refuses to launch closed executables, on closed or capturing streams, nothing enqueued', async () => {
    const s = stream();
    const graph = await s.capture((c) => c.fill(c.device.allocHost('u32', 1), 1));
    const exec = graph.instantiate();
    const before = s.engine.given;
    await s.capture(() => {
      expect(() => exec.launch(s)).toThrow(expect.objectContaining({ name: 'GraphError', reason: 'forbidden' }));
    }).catch(() => {});
    expect(() => exec.launch({} as Stream)).toThrow(/Expected `stream` to be a Stream/);
    expect(() => exec.launch(undefined as never)).toThrow(/Expected `stream` to be a Stream/);
    exec.launch(s);
    expect(() => exec.launch(null as never)).toThrow(/Expected `stream` to be a Stream/);
    const closedStream = getDevice().createStream();
    closedStream.close();
    expect(() => exec.launch(closedStream)).toThrow(/Expected `stream` to be open/);
    expect(s.engine.given).toBe(before + 1); // the one launch
    exec.close();
    expect(() => exec.launch(s)).toThrow(/Expected `executable` to be an open GraphExec, got a closed GraphExec/);
    graph.close();
    expect(() => graph.instantiate()).toThrow(/Expected `graph` to be an open Graph/);
    expect(s.engine.given).toBe(before + 1);
  });

  it('keeps the memory and kernels of its nodes alive until it and its executables close', async () => {
    const device = getDevice();
    const { addU32 } = await testKernels(device);
    const s = stream();
    const x = s.alloc('u32', N);
    s.fill(x, 0);
    const out = device.allocHost('u32', N);
    const graph = await s.capture((c) => {
      c.launch(addU32, { grid: 1, block: N }, [x, 2, N]);
      c.copy(out, x);
    });
    const exec = graph.instantiate();
    graph.close();
    x.close(); // the executable still holds it
    expect(x.closed).toBe(true);
    exec.launch(s);
    exec.launch(s);
    await s.synchronized();
    expect([...out.data]).toEqual(Array(N).fill(4));
    exec.close();
    out.close();
  });

  it('lets go of everything it captured once closed', async () => {
    const device = getDevice();
    const { addU32 } = await testKernels(device);
    const collected = new Set<string>();
    const registry = new FinalizationRegistry<string>((what) => collected.add(what));
    await captureLaunchAndClose(stream(), addU32, registry);
    expect(await collectUntil(() => collected.size === 4)).toBe(true);
    expect([...collected].sort()).toEqual(['array', 'executable', 'graph', 'step']);
  });
});

/** Captures a kernel and a step, launches, closes everything; registers what should be collected. */
async function captureLaunchAndClose(s: Stream, addU32: Awaited<ReturnType<typeof testKernels>>['addU32'], registry: FinalizationRegistry<string>) {
  const x = s.alloc('u32', N);
  const step = () => {};
  const graph = await s.capture((c) => {
    c.launch(addU32, { grid: 1, block: N }, [x, 1, N]);
    c.hostLaunch(step);
  });
  const exec = graph.instantiate();
  exec.launch(s);
  await s.synchronized();
  registry.register(graph, 'graph');
  registry.register(exec, 'executable');
  registry.register(step, 'step');
  registry.register(x, 'array');
  exec.close();
  graph.close();
  x.close();
}

describeBackends('Graph (built node by node)', (getDevice, backend) => {
  const stream = streamsPerTest(getDevice);

  it('runs kernel, copy, fill, event and host-function nodes in dependency order', async () => {
    const device = getDevice();
    const { addU32 } = await testKernels(device);
    const s = stream();
    const [a, b] = [s.alloc('u32', N), s.alloc('u32', N)];
    const out = device.allocHost('u32', 2 * N);
    const calls = device.allocHost('u32', 1);
    const done = device.createEvent();
    const graph = device.createGraph();
    const fillA = graph.addFill(a, 10);
    const fillB = graph.addFill(b, 20);
    const addA = graph.addKernel(addU32, { grid: 1, block: N }, [a, 1, N], { after: [fillA] });
    const addB = graph.addKernel(addU32, { grid: 1, block: N }, [b, 2, N], { after: [fillB] });
    const join = graph.addEmpty({ after: [addA, addB] });
    const copyA = graph.addCopy(out.subarray(0, N), a, { after: [join] });
    const copyB = graph.addCopy(out.subarray(N), b, { after: [join] });
    const host = graph.addHostFunction(helpers.countCalls, calls, { after: [copyA, copyB] });
    graph.addRecord(done, { after: [host] });
    expect(graph.nodes.map((n) => n.kind)).toEqual(['fill', 'fill', 'kernel', 'kernel', 'empty', 'copy', 'copy', 'hostFunction', 'record']);
    expect(addA.dependencies).toEqual([fillA]);
    expect(addA.kernel).toBe(addU32);
    const exec = graph.instantiate();
    exec.launch(s);
    exec.launch(s);
    await s.synchronized();
    expect([...out.data]).toEqual([...Array(N).fill(11), ...Array(N).fill(22)]);
    expect(calls.data[0]).toBe(2);
    if (backend === 'cuda') expect(done.query()).toBe(true);
    exec.close();
    graph.close();
  });

  it('splits at a step: the nodes after it wait for it', async () => {
    const device = getDevice();
    const s = stream();
    const x = s.alloc('u32', 1);
    const out = device.allocHost('u32', 1);
    const graph = device.createGraph();
    graph.addFill(x, 1);
    const order: string[] = [];
    graph.addStep(async () => {
      await new Promise((r) => setTimeout(r, 20));
      order.push('step');
    });
    const second = graph.addFill(x, 2);
    graph.addCopy(out, x, { after: [second] });
    expect(graph.steps).toBe(1);
    const exec = graph.instantiate();
    exec.launch(s);
    s.onDone(() => void order.push(`done ${out.data[0]}`));
    await s.synchronized();
    expect(order).toEqual(['step', 'done 2']);
    exec.close();
    graph.close();
  });

  it('refuses bad nodes by name, adding nothing', async () => {
    const device = getDevice();
    const { addU32 } = await testKernels(device);
    const s = stream();
    const x = s.alloc('u32', N);
    const graph = device.createGraph();
    const other = device.createGraph();
    const foreign = other.addEmpty();
    expect(() => graph.addKernel(addU32, { grid: 1, block: N }, [x, -1, N] as never)).toThrow(/Expected `args\[1\]` to be/);
    expect(() => graph.addKernel({} as never, { grid: 1, block: 1 }, [] as never)).toThrow(/Expected `kernel` to be a Kernel/);
    expect(() => graph.addKernel(addU32, { grid: 0, block: N }, [x, 1, N])).toThrow(/Expected `grid`/);
    expect(() => graph.addCopy(x, device.allocHost('f32', N) as never)).toThrow(/Expected `src` to be memory of u32/);
    expect(() => graph.addFill(x, 2 ** 32)).toThrow(/Expected `value`/);
    expect(() => graph.addEmpty({ after: [foreign] })).toThrow(/Expected `after\[0\]` to be a node of this graph/);
    expect(() => graph.addEmpty({ after: 3 as never })).toThrow(/Expected `after` to be an array/);
    expect(() => graph.addHostFunction(0n)).toThrow(/Expected `fn` to be a CUhostFn pointer/);
    expect(() => graph.addRecord({} as never)).toThrow(/Expected `event` to be an Event/);
    expect(() => graph.addStep('x' as never)).toThrow(/Expected `fn` to be a function/);
    const first = graph.addEmpty();
    graph.addStep(() => {});
    expect(() => graph.addEmpty({ after: [first] })).toThrow(/Expected `after\[0\]` to be a node added after the last step/);
    expect(graph.nodes).toHaveLength(1);
    graph.close();
    expect(() => graph.addEmpty()).toThrow(/Expected `graph` to be an open Graph/);
    other.close();
  });

  it.skipIf(backend !== 'cuda')('refuses executables on streams of another device (needs a GPU beside the host device)', async () => {
    const graph = getDevice().createGraph();
    graph.addEmpty();
    const exec = graph.instantiate();
    const hostStream = Device.host().createStream();
    expect(() => exec.launch(hostStream)).toThrow(RangeError);
    expect(() => exec.launch(hostStream)).toThrow(/Expected `stream` to be a stream of/);
    hostStream.close();
    exec.close();
    graph.close();
  });
});

describe('Graph on the host device', () => {
  it('is a recorded command list: launches replay it in order', async () => {
    const device = Device.host();
    const s = device.createStream();
    const x = s.alloc('u32', 4);
    const out = device.allocHost('u32', 4);
    const graph = await s.capture((c) => {
      c.fill(x, 5);
      c.copy(out, x);
    });
    expect(graph).toBeInstanceOf(Graph);
    const exec = graph.instantiate();
    exec.launch(s);
    await s.synchronized();
    expect([...out.data]).toEqual([5, 5, 5, 5]);
    exec.close();
    graph.close();
    s.close();
  });
});
