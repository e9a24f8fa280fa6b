// Conditional graph nodes (if, if/else, while, switch), captured and built node by node, on both
// backends: the device decides which bodies run (the host device in stream order, as CUDA does),
// bounded loops report their overruns after the launch, and what a body cannot hold is refused.
import { expect, it, vi } from 'vitest';
import { Device, GraphError, LoopLimitError, type DeviceArray, type DType, type Graph, type Stream } from '../../src/index.js';
import { conditionKernelsReady } from '../../src/core/graphs/condition-kernels.js';
import { describeBackends } from '../support/backends.js';
import { conditionKernels } from '../support/condition-kernels.js';
import { helpers } from '../support/helpers.js';
import { testKernels } from '../support/kernels.js';
import { streamsPerTest } from '../support/streams.js';

const ONE = { grid: 1, block: 1 };

/** What `array` holds once `s` has done its work. */
async function read<D extends DType>(s: Stream, array: DeviceArray<D>): Promise<number[]> {
  const host = s.device.allocHost(array.dtype, array.length);
  s.copy(host, array);
  await s.synchronized();
  const values = Array.from(host.data as ArrayLike<number>, Number);
  host.close();
  return values;
}

/** The errors emitted on `s`'s 'error' event from now on. */
function errorsOf(s: Stream): unknown[] {
  const heard: unknown[] = [];
  s.on('error', (error) => void heard.push(error));
  return heard;
}

describeBackends('Conditional graph nodes', (getDevice, backend) => {
  const stream = streamsPerTest(getDevice);

  // First in the file, so that nothing has asked for the CUDA device's built-in kernels yet; on
  // the host backend a host device of its own, which no other test uses.
  it('refuses to instantiate a graph needing the built-in condition kernels before graph.ready(), on every device, then runs it', async () => {
    const device = backend === 'host' ? Device.hosts(2)[1]! : getDevice();
    expect(conditionKernelsReady(device.engine)).toBe(false);
    const { tick } = await conditionKernels(device);
    const s = device.createStream();
    const [x, out, k] = [s.alloc('u32', 1), s.alloc('u32', 1), s.alloc('u32', 1)];
    s.fill(x, 5);
    s.fill(out, 0);
    s.fill(k, 0);
    const setting = device.createGraph();
    const chosen = setting.condition();
    const set = setting.addSetCondition(chosen, x);
    setting.addIf(chosen, (then) => void then.addFill(out, 1), { after: [set] });
    const looping = device.createGraph();
    const more = looping.condition({ initial: 1 });
    looping.addWhile(more, (body) => void body.addKernel(tick, ONE, [k, 3, more]), { maxIterations: 10 });
    for (const graph of [setting, looping]) {
      expect(() => graph.instantiate()).toThrow(expect.objectContaining({ name: 'GraphError', reason: 'condition' }));
      expect(() => graph.instantiate()).toThrow(/await graph\.ready\(\) before instantiate\(\)/);
    }
    await setting.ready();
    await looping.ready();
    expect(conditionKernelsReady(device.engine)).toBe(true);
    const [setExec, loopExec] = [setting.instantiate(), looping.instantiate()];
    setExec.launch(s);
    loopExec.launch(s);
    expect(await read(s, out)).toEqual([1]);
    expect(await read(s, k)).toEqual([3]);
    [setExec, loopExec, setting, looping].forEach((o) => o.close());
    s.close();
  });

  it('relaxes a grid in a while loop until it converges: the same grid and sweeps, exactly, as a loop driven from the host', async () => {
    const device = getDevice();
    const { relax, relaxFlag } = await conditionKernels(device);
    const s = stream();
    const N = 32;
    const TOL = 2 ** -10;
    const start = (u: DeviceArray<'f32'>) => {
      s.fill(u, 0);
      s.fill(u.subarray(N - 1), 1);
    };
    // The host-driven loop: one sweep per round trip.
    const [v, hostSweeps, flag] = [s.alloc('f32', N), s.alloc('u32', 1), s.alloc('u32', 1)];
    const flagHost = device.allocHost('u32', 1);
    start(v);
    s.fill(hostSweeps, 0);
    let rounds = 0;
    do {
      s.launch(relaxFlag, { grid: 1, block: N }, [v, N, TOL, hostSweeps, flag]);
      s.copy(flagHost, flag);
      await s.synchronized();
      rounds++;
    } while (flagHost.data[0] !== 0 && rounds < 10_000);
    expect(rounds).toBeGreaterThan(10); // data-dependent, and not trivial
    expect(rounds).toBeLessThan(10_000);
    // The same on the device, in one launch.
    const [u, sweeps] = [s.alloc('f32', N), s.alloc('u32', 1)];
    start(u);
    s.fill(sweeps, 0);
    const errors = errorsOf(s);
    const graph = await s.capture((c) => {
      const more = c.condition({ initial: 1 });
      c.whileLoop(more, (b) => b.launch(relax, { grid: 1, block: N }, [u, N, TOL, sweeps, more]), { maxIterations: 10_000 });
    });
    expect(graph.nodes.map((n) => n.kind)).toEqual(['conditional']);
    const exec = graph.instantiate();
    exec.launch(s);
    expect(await read(s, sweeps)).toEqual([rounds]);
    expect(await read(s, hostSweeps)).toEqual([rounds]);
    const [loop, host] = [await read(s, u), await read(s, v)];
    expect(loop).toEqual(host);
    expect(loop[0]).toBe(0);
    expect(loop[N - 1]).toBe(1);
    expect(loop[N / 2]).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    exec.close();
    graph.close();
    flagHost.close();
  });

  it('routes each value to the right body of an if/else and a switch, on every launch of one executable', async () => {
    const device = getDevice();
    const s = stream();
    const values = [0, 1, 2, 5, 6, 3, 7, -1, 2, -2147483648];
    const flags = device.allocHost('i32', values.length);
    flags.data.set(values);
    const [flag, branch, nonzero, which] = [s.alloc('i32', 1), s.alloc('u32', 1), s.alloc('u32', 1), s.alloc('u32', 1)];
    const [branches, nonzeros, cases] = [s.alloc('u32', values.length), s.alloc('u32', values.length), s.alloc('u32', values.length)];
    const graph = await s.capture((c) => {
      c.fill(branch, 99);
      c.fill(nonzero, 0);
      c.fill(which, 99);
      c.ifElse(c.conditionFrom(flag, '> 5'), (t) => t.fill(branch, 1), (o) => o.fill(branch, 2));
      c.ifThen(c.conditionFrom(flag, '!= 0'), (t) => t.fill(nonzero, 1));
      const choice = c.conditionFrom(flag);
      c.switchOn(choice, [(k) => k.fill(which, 10), (k) => k.fill(which, 11), (k) => k.fill(which, 12), (k) => k.fill(which, 13)]);
    });
    expect(graph.nodes.map((n) => n.kind)).toEqual(['fill', 'fill', 'fill', 'setCondition', 'conditional', 'setCondition', 'conditional', 'setCondition', 'conditional']);
    await graph.ready();
    const exec = graph.instantiate();
    values.forEach((_, i) => {
      s.copy(flag, flags.subarray(i, i + 1));
      exec.launch(s);
      s.copy(branches.subarray(i, i + 1), branch);
      s.copy(nonzeros.subarray(i, i + 1), nonzero);
      s.copy(cases.subarray(i, i + 1), which);
    });
    expect(await read(s, branches)).toEqual(values.map((v) => (v > 5 ? 1 : 2)));
    expect(await read(s, nonzeros)).toEqual(values.map((v) => (v !== 0 ? 1 : 0)));
    // The switch runs case v for 0 <= v < 4, none for 5, 6, 7 or a negative value.
    expect(await read(s, cases)).toEqual(values.map((v) => (v >= 0 && v < 4 ? 10 + v : 99)));
    exec.close();
    graph.close();
    flags.close();
  });

  it('routes f32 values by comparisons, in a graph built node by node', async () => {
    const device = getDevice();
    const s = stream();
    const values = [-3, -1.5, -1.25, 0, 0.5, 7];
    const inputs = device.allocHost('f32', values.length);
    inputs.data.set(values);
    const [x, out] = [s.alloc('f32', 1), s.alloc('u32', 1)];
    const results = s.alloc('u32', values.length);
    const graph = device.createGraph();
    const low = graph.condition();
    const start = graph.addFill(out, 0);
    const set = graph.addSetCondition(low, x, '<= -1.5', { after: [start] });
    const branch = graph.addIfElse(low, (t) => t.addFill(out, 1), (o) => void o.addFill(out, 2), { after: [set] });
    expect(graph.nodes.map((n) => n.kind)).toEqual(['fill', 'setCondition', 'conditional']);
    expect(branch.kind).toBe('conditional');
    expect(set.kind).toBe('setCondition');
    await graph.ready();
    const exec = graph.instantiate();
    values.forEach((_, i) => {
      s.copy(x, inputs.subarray(i, i + 1));
      exec.launch(s);
      s.copy(results.subarray(i, i + 1), out);
    });
    expect(await read(s, results)).toEqual(values.map((v) => (v <= -1.5 ? 1 : 2)));
    exec.close();
    graph.close();
    inputs.close();
  });

  it('runs an if made inside a while loop\'s body on the iterations that ask for it, captured and built', async () => {
    const device = getDevice();
    const { tickOdd, mark } = await conditionKernels(device);
    const s = stream();
    const LIMIT = 9;
    const expected = Array.from({ length: 16 }, (_, k) => (k >= 1 && k <= LIMIT && k % 2 === 1 ? 10 * k + 1 : 0));
    // Captured.
    const [k, log] = [s.alloc('u32', 1), s.alloc('u32', 16)];
    s.fill(k, 0);
    s.fill(log, 0);
    const captured = await s.capture((c) => {
      const more = c.condition({ initial: 1 });
      c.whileLoop(more, (b) => {
        const odd = b.condition();
        b.launch(tickOdd, ONE, [k, LIMIT, more, odd]);
        b.ifThen(odd, (t) => t.launch(mark, ONE, [log, k]));
      });
    });
    const exec = captured.instantiate();
    exec.launch(s);
    expect(await read(s, k)).toEqual([LIMIT]);
    expect(await read(s, log)).toEqual(expected);
    // Built node by node.
    const [k2, log2] = [s.alloc('u32', 1), s.alloc('u32', 16)];
    s.fill(k2, 0);
    s.fill(log2, 0);
    const graph = device.createGraph();
    const more = graph.condition({ initial: 1 });
    graph.addWhile(more, (body) => {
      const odd = body.condition();
      const ticked = body.addKernel(tickOdd, ONE, [k2, LIMIT, more, odd]);
      body.addIf(odd, (then) => void then.addKernel(mark, ONE, [log2, k2]), { after: [ticked] });
    });
    await graph.ready();
    const built = graph.instantiate();
    built.launch(s);
    expect(await read(s, k2)).toEqual([LIMIT]);
    expect(await read(s, log2)).toEqual(expected);
    [exec, built, captured, graph].forEach((o) => o.close());
  });

  it('stops a loop at maxIterations, runs the later nodes, reports a LoopLimitError, and the stream goes on', async () => {
    const device = getDevice();
    const { forever, tick } = await conditionKernels(device);
    const { addU32 } = await testKernels(device);
    const s = stream();
    const errors = errorsOf(s);
    const [k, after] = [s.alloc('u32', 1), s.alloc('u32', 1)];
    s.fill(k, 0);
    s.fill(after, 0);
    const graph = await s.capture((c) => {
      const more = c.condition({ initial: 1 });
      c.whileLoop(more, (b) => b.launch(forever, ONE, [k, more]), { maxIterations: 7, name: 'spinner' });
      c.fill(after, 42);
    });
    const exec = graph.instantiate();
    exec.launch(s);
    expect(await read(s, k)).toEqual([7]);
    expect(await read(s, after)).toEqual([42]);
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    expect(errors[0]).toBeInstanceOf(LoopLimitError);
    expect(errors[0]).toMatchObject({ name: 'LoopLimitError', loop: 'spinner', iterations: 7 });
    // The stream goes on: other work, and a loop that ends within its bound, report nothing.
    const x = s.alloc('u32', 4);
    s.fill(x, 1);
    s.launch(addU32, { grid: 1, block: 4 }, [x, 2, 4]);
    expect(await read(s, x)).toEqual([3, 3, 3, 3]);
    const [j, y] = [s.alloc('u32', 1), s.alloc('u32', 1)];
    s.fill(j, 0);
    s.fill(y, 0);
    const unnamed = await s.capture((c) => {
      const first = c.condition({ initial: 1 });
      c.whileLoop(first, (b) => b.launch(tick, ONE, [j, 4, first]), { maxIterations: 4 });
      const second = c.condition({ initial: 1 });
      c.whileLoop(second, (b) => b.launch(forever, ONE, [y, second]), { maxIterations: 3 });
    });
    const bounded = unnamed.instantiate();
    bounded.launch(s);
    expect(await read(s, j)).toEqual([4]);
    expect(await read(s, y)).toEqual([3]);
    await vi.waitFor(() => expect(errors).toHaveLength(2));
    expect(errors[1]).toMatchObject({ name: 'LoopLimitError', loop: 'while loop 1', iterations: 3 });
    exec.launch(s); // the first executable again: k goes on from 7, stopped at 7 more
    expect(await read(s, k)).toEqual([14]);
    await vi.waitFor(() => expect(errors).toHaveLength(3));
    expect(errors[2]).toMatchObject({ loop: 'spinner', iterations: 7 });
    s.fill(x, 5);
    expect(await read(s, x)).toEqual([5, 5, 5, 5]);
    await new Promise((r) => setTimeout(r, 20));
    expect(errors).toHaveLength(3);
    [exec, bounded, graph, unnamed].forEach((o) => o.close());
  });

  it('refuses a host step, an event record or wait and a native host function in a body, ending the capture', async () => {
    const device = getDevice();
    const s = stream();
    const x = s.alloc('u32', 1);
    s.fill(x, 3);
    const event = device.createEvent();
    const calls = device.allocHost('u32', 1);
    const refused: [string, (c: Stream) => unknown][] = [
      ['hostLaunch', (c) => c.hostLaunch(() => {})],
      ['record', (c) => c.record()],
      ['wait', (c) => c.wait(event)],
      ['launchHostFunction', (c) => c.launchHostFunction(helpers.countCalls, calls)],
    ];
    for (const [what, call] of refused) {
      let thrown: unknown;
      const captured = s.capture((c) => {
        c.fill(x, 9);
        c.ifThen(c.condition({ initial: 1 }), (b) => {
          b.fill(x, 10);
          try {
            call(b);
          } catch (error) {
            thrown = error;
            throw error;
          }
        });
      });
      await expect(captured, what).rejects.toMatchObject({ name: 'GraphError', reason: 'body' });
      expect(thrown, what).toBeInstanceOf(GraphError);
      expect(thrown, what).toMatchObject({ reason: 'body' });
    }
    // An async body: refused, in a capture and in a graph built node by node.
    await expect(s.capture((c) => c.whileLoop(c.condition(), async () => {}))).rejects.toMatchObject({ name: 'GraphError', reason: 'body' });
    const graph = device.createGraph();
    expect(() => graph.addIf(graph.condition(), (async () => {}) as never)).toThrow(expect.objectContaining({ name: 'GraphError', reason: 'body' }));
    expect(() => graph.addWhile(graph.condition(), (body) => void body.addStep(() => {}))).toThrow(expect.objectContaining({ reason: 'body' }));
    expect(() => graph.addIf(graph.condition(), (body) => void body.addRecord(event))).toThrow(expect.objectContaining({ reason: 'body' }));
    expect(() => graph.addIf(graph.condition(), (body) => void body.addWait(event))).toThrow(expect.objectContaining({ reason: 'body' }));
    expect(() => graph.addIf(graph.condition(), (body) => void body.addHostFunction(helpers.countCalls, calls))).toThrow(expect.objectContaining({ reason: 'body' }));
    graph.close();
    // The stream is untouched and usable.
    expect(await read(s, x)).toEqual([3]);
    s.fill(x, 4);
    expect(await read(s, x)).toEqual([4]);
    event.close();
    calls.close();
  });

  it('refuses conditions used outside their place, outside a capture, on eager launches, and bad bounds', async () => {
    const device = getDevice();
    const { tick, setTo } = await conditionKernels(device);
    const s = stream();
    const k = s.alloc('u32', 1);
    const condition = (thrown: () => unknown) => expect(thrown).toThrow(expect.objectContaining({ name: 'GraphError', reason: 'condition' }));
    // Outside a capture.
    condition(() => s.condition());
    condition(() => s.conditionFrom(k));
    const [graph, other] = [device.createGraph(), device.createGraph()];
    const mine = graph.condition({ initial: 1 });
    condition(() => s.ifThen(mine, () => {}));
    condition(() => s.whileLoop(mine, () => {}));
    condition(() => s.switchOn(mine, [() => {}]));
    condition(() => s.setCondition(mine, k));
    // Another graph's condition.
    condition(() => other.addIf(mine, () => {}));
    condition(() => other.addKernel(tick, ONE, [k, 2, mine]));
    condition(() => other.addSetCondition(mine, k));
    // Two conditional nodes on one condition.
    graph.addIf(mine, (t) => void t.addFill(k, 1));
    condition(() => graph.addWhile(mine, (b) => void b.addFill(k, 1)));
    // A condition whose node is added at another level than where it was made.
    const top = graph.condition();
    condition(() => graph.addIf(graph.condition({ initial: 1 }), (body) => void body.addIf(top, () => {})));
    let inner: ReturnType<Graph['condition']> | undefined;
    graph.addIf(graph.condition({ initial: 1 }), (body) => void (inner = body.condition()));
    condition(() => graph.addIf(inner!, () => {}));
    await expect(
      s.capture((c) => {
        const outer = c.condition();
        c.ifThen(c.condition({ initial: 1 }), (b) => b.ifThen(outer, () => {}));
      }),
    ).rejects.toMatchObject({ name: 'GraphError', reason: 'condition' });
    // A condition given to a launch on a stream.
    expect(() => s.launch(tick, ONE, [k, 2, mine])).toThrow(TypeError);
    expect(() => s.launch(setTo, ONE, [1, mine])).toThrow(/recorded into its graph/);
    // Loop bounds.
    for (const maxIterations of [0, -1, 1.5, 2 ** 31]) {
      expect(() => graph.addWhile(graph.condition(), () => {}, { maxIterations }), String(maxIterations)).toThrow(RangeError);
      await expect(s.capture((c) => c.whileLoop(c.condition(), () => {}, { maxIterations })), String(maxIterations)).rejects.toThrow(RangeError);
    }
    graph.close();
    other.close();
    // Set by kernels, read by no node: refused by instantiate.
    const unread = device.createGraph();
    unread.addKernel(setTo, ONE, [1, unread.condition()]);
    await unread.ready();
    condition(() => unread.instantiate());
    unread.close();
    const unreadCaptured = await s.capture((c) => c.launch(setTo, ONE, [1, c.condition()]));
    condition(() => unreadCaptured.instantiate());
    unreadCaptured.close();
    // Used on both sides of a JavaScript step.
    const split = device.createGraph();
    const c = split.condition();
    split.addKernel(setTo, ONE, [1, c]);
    split.addStep(() => {});
    split.addIf(c, (t) => void t.addFill(k, 1));
    await split.ready();
    condition(() => split.instantiate());
    split.close();
    const splitCaptured = await s.capture((cap) => {
      const c2 = cap.condition();
      cap.launch(setTo, ONE, [1, c2]);
      cap.hostLaunch(() => {});
      cap.ifThen(c2, (t) => t.fill(k, 1));
    });
    condition(() => splitCaptured.instantiate());
    splitCaptured.close();
  });

  it('gives nodes in bodies new arguments, updates them from another graph, and refuses another body topology', async () => {
    const device = getDevice();
    const { addOne } = await conditionKernels(device);
    const s = stream();
    const [x, y] = [s.alloc('u32', 1), s.alloc('u32', 1)];
    s.fill(x, 0);
    s.fill(y, 0);
    const capture = (target: DeviceArray<'u32'>, base: number, extra = false) =>
      s.capture((c) => {
        c.launch(addOne, ONE, [target, base + 1]);
        c.ifThen(c.condition({ initial: 1 }), (b) => {
          b.launch(addOne, ONE, [target, base + 2]);
          b.ifThen(b.condition({ initial: 1 }), (bb) => {
            bb.launch(addOne, ONE, [target, base + 3]);
            if (extra) bb.launch(addOne, ONE, [target, base + 3]);
          });
        });
        c.launch(addOne, ONE, [target, base + 4]);
      });
    const graph = await capture(x, 0);
    const nodes = graph.nodesOf(addOne);
    expect(nodes).toHaveLength(4);
    expect(nodes[0]).toBe(graph.nodes[0]);
    expect(nodes[3]).toBe(graph.nodes[2]);
    expect(nodes[1]!.graph.parent).toBe(graph);
    expect(nodes[2]!.graph.parent).toBe(nodes[1]!.graph);
    expect(nodes[2]!.graph.root).toBe(graph);
    const exec = graph.instantiate();
    exec.launch(s);
    expect(await read(s, x)).toEqual([1 + 2 + 3 + 4]);
    // Depth first: the second is in the if's body, the third in the body of the if in it.
    exec.setArgs(nodes[1]!, [x, 20]);
    exec.setArgs(nodes[2]!, [x, 300]);
    exec.launch(s);
    expect(await read(s, x)).toEqual([10 + 1 + 20 + 300 + 4]);
    exec.setArgs(nodes[2]!, [y, 5000]);
    exec.launch(s);
    expect(await read(s, x)).toEqual([335 + 1 + 20 + 4]);
    expect(await read(s, y)).toEqual([5000]);
    // An update from a graph whose bodies' arguments differ.
    const next = await capture(y, 100);
    exec.update(next);
    exec.launch(s);
    expect(await read(s, x)).toEqual([360]);
    expect(await read(s, y)).toEqual([5000 + 101 + 102 + 103 + 104]);
    // A body with another number of nodes: refused, nothing changed.
    const grown = await capture(x, 0, true);
    expect(() => exec.update(grown)).toThrow(expect.objectContaining({ name: 'GraphError', reason: 'topology' }));
    expect(() => exec.update(grown)).toThrow(/its body has 2 nodes where the graph's has 1/);
    exec.launch(s);
    expect(await read(s, x)).toEqual([360]);
    expect(await read(s, y)).toEqual([5410 + 410]);
    [exec, graph, next, grown].forEach((o) => o.close());
  });

  it('runs a body of 10 000 nodes and 1000 conditionals in one graph, exactly', async () => {
    const device = getDevice();
    const { addOne } = await conditionKernels(device);
    const s = stream();
    const NODES = 10_000;
    const [x, hits] = [s.alloc('u32', 1), s.alloc('u32', 1000)];
    s.fill(x, 0);
    s.fill(hits, 0);
    const big = await s.capture((c) => {
      c.ifThen(c.condition({ initial: 1 }), (b) => {
        for (let i = 0; i < NODES; i++) b.launch(addOne, ONE, [x, i]);
      });
    });
    expect(big.nodesOf(addOne)).toHaveLength(NODES);
    const bigExec = big.instantiate();
    bigExec.launch(s);
    expect(await read(s, x)).toEqual([(NODES * (NODES - 1)) / 2]);
    const flags = s.alloc('u32', 1000);
    const flagValues = device.allocHost('u32', 1000);
    flagValues.data.set(Array.from({ length: 1000 }, (_, i) => i % 3));
    s.copy(flags, flagValues);
    const many = await s.capture((c) => {
      for (let i = 0; i < 1000; i++) {
        const set = c.conditionFrom(flags.subarray(i, i + 1), '!= 0');
        c.ifElse(set, (t) => t.fill(hits.subarray(i, i + 1), i + 1), (o) => o.fill(hits.subarray(i, i + 1), 7));
      }
    });
    expect(many.nodes.filter((n) => n.kind === 'conditional')).toHaveLength(1000);
    const manyExec = many.instantiate();
    manyExec.launch(s);
    expect(await read(s, hits)).toEqual(Array.from({ length: 1000 }, (_, i) => (i % 3 !== 0 ? i + 1 : 7)));
    [bigExec, big, manyExec, many].forEach((o) => o.close());
    flagValues.close();
  }, 60_000);

  it('starts each launch with the conditions at their initial values', async () => {
    const device = getDevice();
    const { tick } = await conditionKernels(device);
    const s = stream();
    const errors = errorsOf(s);
    const [k, b] = [s.alloc('u32', 1), s.alloc('u32', 1)];
    s.fill(k, 0);
    s.fill(b, 0);
    const graph = await s.capture((c) => {
      const more = c.condition({ initial: 1 });
      c.whileLoop(more, (body) => body.launch(tick, ONE, [k, 5, more]));
      const bounded = c.condition({ initial: 1 });
      c.whileLoop(bounded, (body) => body.launch(tick, ONE, [b, 5, bounded]), { maxIterations: 6 });
    });
    const exec = graph.instantiate();
    exec.launch(s);
    expect(await read(s, k)).toEqual([5]);
    expect(await read(s, b)).toEqual([5]);
    exec.launch(s);
    exec.launch(s);
    expect(await read(s, k)).toEqual([15]); // the loop ran again: 5 more each launch
    expect(await read(s, b)).toEqual([15]); // and the bound counts each launch's iterations afresh
    await new Promise((r) => setTimeout(r, 20));
    expect(errors).toEqual([]);
    exec.close();
    graph.close();
  });

  it('runs one executable launched on two streams in turn, 20 times each without waiting, as a single launch runs it', async () => {
    const device = getDevice();
    const { addOne, setTo } = await conditionKernels(device);
    const [s1, s2] = [stream(), stream()];
    const errors = [s1, s2].map(errorsOf);
    const k = s1.alloc('u32', 1);
    s1.fill(k, 0);
    await s1.synchronized();
    // Each launch: one iteration, which adds 1 and ends the loop.
    const graph = await s1.capture((c) => {
      const more = c.condition({ initial: 1 });
      c.whileLoop(more, (b) => {
        b.launch(addOne, ONE, [k, 1]);
        b.launch(setTo, ONE, [0, more]);
      });
    });
    const exec = graph.instantiate();
    exec.launch(s1);
    expect(await read(s1, k)).toEqual([1]);
    for (let i = 0; i < 20; i++) {
      exec.launch(s1);
      exec.launch(s2);
    }
    await Promise.all([s1.synchronized(), s2.synchronized()]);
    expect(await read(s1, k)).toEqual([41]);
    await new Promise((r) => setTimeout(r, 20));
    expect(errors).toEqual([[], []]);
    exec.close();
    graph.close();
  });

  it('decides from a host array written before each launch, captured and built node by node', async () => {
    const device = getDevice();
    const s = stream();
    const flag = device.allocHost('u32', 1);
    const [captureOut, graphOut] = [s.alloc('u32', 1), s.alloc('u32', 1)];
    const captured = await s.capture((c) => c.ifElse(c.conditionFrom(flag, '!= 0'), (t) => t.fill(captureOut, 1), (o) => o.fill(captureOut, 2)));
    const graph = device.createGraph();
    const chosen = graph.condition();
    const set = graph.addSetCondition(chosen, flag);
    graph.addIfElse(chosen, (t) => void t.addFill(graphOut, 3), (o) => void o.addFill(graphOut, 4), { after: [set] });
    await graph.ready();
    const [capturedExec, graphExec] = [captured.instantiate(), graph.instantiate()];
    const values = [0, 1, 7, 0, 0, 2, 1, 0];
    const seen: number[][] = [];
    for (const v of values) {
      flag.data[0] = v; // the previous launch has finished: read() waited for it
      capturedExec.launch(s);
      graphExec.launch(s);
      seen.push([...(await read(s, captureOut)), ...(await read(s, graphOut))]);
    }
    expect(seen).toEqual(values.map((v) => (v !== 0 ? [1, 3] : [2, 4])));
    [capturedExec, graphExec, captured, graph].forEach((o) => o.close());
    flag.close();
  });

  it('refuses an async body function, in a capture and node by node, and runs nothing it does after its first await', async () => {
    const device = getDevice();
    const { addOne } = await conditionKernels(device);
    const s = stream();
    const k = s.alloc('u32', 1);
    s.fill(k, 0);
    await s.synchronized();
    // In a capture: the capture rejects; the launch after the await never runs.
    let resumed = false;
    const captured = s.capture((c) =>
      c.whileLoop(c.condition({ initial: 1 }), async () => {
        await null;
        resumed = true;
        c.launch(addOne, ONE, [k, 1000]);
      }),
    );
    await expect(captured).rejects.toMatchObject({ name: 'GraphError', reason: 'body' });
    await vi.waitFor(() => expect(resumed).toBe(true));
    await new Promise((r) => setTimeout(r, 50));
    expect(await read(s, k)).toEqual([0]);
    // Node by node: addIf throws at once; the node the function adds after its await is refused.
    const graph = device.createGraph();
    let late: unknown = 'not reached';
    const body = async (then: Graph) => {
      await null;
      try {
        then.addKernel(addOne, ONE, [k, 1000]);
        late = undefined;
      } catch (error) {
        late = error;
        throw error; // a rejection no one handles fails the run: the graph must have handled it
      }
    };
    expect(() => graph.addIf(graph.condition({ initial: 1 }), body as never)).toThrow(expect.objectContaining({ name: 'GraphError', reason: 'body' }));
    await vi.waitFor(() => expect(late).not.toBe('not reached'));
    expect(late).toBeInstanceOf(Error);
    expect(graph.nodes).toEqual([]);
    graph.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(await read(s, k)).toEqual([0]);
    s.fill(k, 4);
    expect(await read(s, k)).toEqual([4]); // the stream goes on
  });

  it('refuses a condition made in one body and used in its sibling, saying it is another body', async () => {
    const device = getDevice();
    const { setTo } = await conditionKernels(device);
    const s = stream();
    const message = /another body 1 level down/;
    // Set by a kernel in the sibling body.
    const graph = device.createGraph();
    let inner: ReturnType<Graph['condition']> | undefined;
    expect(() =>
      graph.addIfElse(
        graph.condition({ initial: 1 }),
        (then) => {
          inner = then.condition();
          then.addIf(inner, () => {});
        },
        (otherwise) => void otherwise.addKernel(setTo, ONE, [1, inner!]),
      ),
    ).toThrow(expect.objectContaining({ name: 'GraphError', reason: 'condition', message: expect.stringMatching(message) }));
    // Read by a conditional node in the sibling body.
    let made: ReturnType<Graph['condition']> | undefined;
    expect(() =>
      graph.addIfElse(
        graph.condition({ initial: 1 }),
        (then) => void (made = then.condition()),
        (otherwise) => void otherwise.addIf(made!, () => {}),
      ),
    ).toThrow(expect.objectContaining({ name: 'GraphError', reason: 'condition', message: expect.stringMatching(message) }));
    graph.close();
    // In a capture.
    await expect(
      s.capture((c) => {
        let mine: ReturnType<Stream['condition']> | undefined;
        c.ifElse(c.condition({ initial: 1 }), (t) => void (mine = t.condition()), (o) => o.ifThen(mine!, () => {}));
      }),
    ).rejects.toMatchObject({ name: 'GraphError', reason: 'condition', message: expect.stringMatching(message) });
  });
});
