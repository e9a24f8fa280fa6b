// Arguments that look like what rxcuda takes but are not: a Proxy of a kernel, event, stream,
// array or graph node (or an object made from a class's prototype alone) is refused by name,
// never reaching a private member; holes in grids, blocks, signatures and dependency lists are
// refused as undefined is; the launch operator's `hooks` must be an array of functions.
import { beforeAll, expect, it } from 'vitest';
import { Device, GraphNode, Kernel, Stream, launch } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { streamsPerTest } from '../support/streams.js';
import { testKernels } from '../support/kernels.js';

/** A TypeError (of whichever subclass) with exactly `message`. */
const typeErrorWith = (message: string) => expect.objectContaining({ name: 'TypeError', message });

const one = { grid: 1, block: 1 };

describeBackends('objects of rxcuda behind a Proxy', (getDevice) => {
  let device: Device;
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  beforeAll(async () => {
    device = getDevice();
    kernels = await testKernels(device);
  });
  const stream = streamsPerTest(() => device);

  it('are refused as arguments of a stream, by name, and nothing is enqueued', async () => {
    const s = stream();
    const x = s.alloc('u32', 4);
    const event = s.record();
    const given = s.engine.given;
    expect(() => s.launch(new Proxy(kernels.addU32, {}), one, [x, 1, 4])).toThrow(typeErrorWith('Expected `kernel` to be a Kernel, got a Proxy of a Kernel'));
    expect(() => s.launch(Object.create(Kernel.prototype) as Kernel, one, [])).toThrow(typeErrorWith('Expected `kernel` to be a Kernel, got a Kernel'));
    expect(() => s.wait(new Proxy(event, {}))).toThrow(typeErrorWith('Expected `event` to be an Event, got a Proxy of an Event'));
    expect(() => Stream.fromHandle(1n, Object.create(Device.prototype) as Device)).toThrow(typeErrorWith('Expected `device` to be a Device, got a Device'));
    expect(() => Stream.fromHandle(1n, new Proxy(device, {}))).toThrow(typeErrorWith('Expected `device` to be a Device, got a Proxy of a Device'));
    expect(() => s.copy(new Proxy(x, {}), x)).toThrow(typeErrorWith('Expected `dst` to be a DeviceArray or HostArray, got a Proxy of a DeviceArray'));
    expect(() => s.fill(new Proxy(x, {}), 1)).toThrow(typeErrorWith('Expected `dst` to be a DeviceArray or HostArray, got a Proxy of a DeviceArray'));
    expect(s.engine.given).toBe(given);
    await s.synchronized();
  });

  it('are refused as kernel arguments, whatever address their traps give', async () => {
    const s = stream();
    const x = s.alloc('u32', 4);
    s.fill(x, 1);
    const lying = new Proxy(x, { get: (target, key) => (key === 'lo' || key === 'hi' ? 0xdead : Reflect.get(target, key)) });
    const given = s.engine.given;
    expect(() => s.launch(kernels.addU32, one, [lying, 1, 4])).toThrow(/^Expected `args\[0\]` to be a DeviceArray or HostArray of u32 .*, got a Proxy of a DeviceArray$/);
    expect(() => s.launch(kernels.store, one, [lying, 1])).toThrow(/^Expected `args\[0\]` to be a DeviceArray, a HostArray or a device address .*, got a Proxy of a DeviceArray$/);
    expect(s.engine.given).toBe(given);
    const host = device.allocHost('u32', 4);
    s.copy(host, x);
    await s.synchronized();
    expect([...host.data]).toEqual([1, 1, 1, 1]);
  });

  it('are refused by graphs and executables', async () => {
    const s = stream();
    const x = s.alloc('u32', 4);
    const graph = device.createGraph();
    const node = graph.addKernel(kernels.addU32, one, [x, 1, 4]);
    expect(() => graph.addKernel(new Proxy(kernels.addU32, {}), one, [x, 1, 4])).toThrow(typeErrorWith('Expected `kernel` to be a Kernel, got a Proxy of a Kernel'));
    expect(() => graph.addEmpty({ after: [new Proxy(node, {})] })).toThrow(typeErrorWith('Expected `after[0]` to be a GraphNode, got a Proxy of a GraphNode'));
    expect(() => graph.addEmpty({ after: [Object.create(GraphNode.prototype) as GraphNode] })).toThrow(typeErrorWith('Expected `after[0]` to be a GraphNode, got a GraphNode'));
    const exec = graph.instantiate();
    expect(() => exec.launch(new Proxy(s, {}) as Stream)).toThrow(typeErrorWith('Expected `stream` to be a Stream, got a Proxy of a Stream'));
    expect(() => exec.setArgs(new Proxy(node, {}), [x, 2, 4])).toThrow(typeErrorWith('Expected `node` to be a GraphNode, got a Proxy of a GraphNode'));
    exec.close();
    graph.close();
  });

  it('are refused by the launch operator when it is made', () => {
    expect(() => launch(new Proxy(kernels.store, {}), one, [1n, 1])).toThrow(typeErrorWith('Expected `kernel` to be a Kernel, got a Proxy of a Kernel'));
  });
});

describeBackends('holes in arrays given to launches and graphs', (getDevice) => {
  let device: Device;
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  beforeAll(async () => {
    device = getDevice();
    kernels = await testKernels(device);
  });
  const stream = streamsPerTest(() => device);

  it('are refused in a grid or block as undefined is, also where a configuration like it was used before', async () => {
    const s = stream();
    const counter = device.allocHost('u32', 1);
    s.launch(kernels.count, { grid: [2, 1, 3], block: 1 }, [counter]);
    // eslint-disable-next-line no-sparse-arrays
    const holes: [[number, number], string][] = [[[2, , 3] as never, '[2, , 3]'], [[, 2] as never, '[, 2]']];
    for (const [grid, shown] of holes) {
      expect(() => s.launch(kernels.count, { grid, block: 1 }, [counter])).toThrow(typeErrorWith(`Expected \`grid\` to be positive integers, got ${shown}`));
      expect(() => s.launch(kernels.count, { grid: 1, block: grid }, [counter])).toThrow(/^Expected `block` to be positive integers/);
    }
    await s.synchronized();
    expect(counter.data[0]).toBe(6); // the one launch made
  });

  it('are refused by graph.addKernel, exec.setArgs and a dependency list', async () => {
    const s = stream();
    const x = s.alloc('u32', 4);
    const graph = device.createGraph();
    // eslint-disable-next-line no-sparse-arrays
    const grid = [2, , 3] as unknown as [number, number, number];
    expect(() => graph.addKernel(kernels.addU32, { grid, block: 1 }, [x, 1, 4])).toThrow(/^Expected `grid` to be positive integers, got \[2, , 3\]$/);
    const node = graph.addKernel(kernels.addU32, one, [x, 1, 4]);
    // eslint-disable-next-line no-sparse-arrays
    expect(() => graph.addEmpty({ after: [node, , node] as never })).toThrow(typeErrorWith('Expected `after[1]` to be a GraphNode, got undefined'));
    const exec = graph.instantiate();
    expect(() => exec.setArgs(node, [x, 2, 4], { grid, block: 1 })).toThrow(/^Expected `grid` to be positive integers/);
    // eslint-disable-next-line no-sparse-arrays
    expect(() => exec.setArgs(node, [x, , 4] as never)).toThrow(/^Expected `args\[1\]` to be an integer .*, got undefined$/);
    exec.close();
    graph.close();
  });

  it('are refused in a signature', async () => {
    const module = await device.compile('extern "C" __global__ void two(unsigned* x, unsigned n) {}');
    // eslint-disable-next-line no-sparse-arrays
    expect(() => module.kernel('two', ['ptr', , 'u32'] as never, { cpu: () => {} })).toThrow(/^Expected `signature\[1\]` to be one of .*, got undefined$/);
  });
});

describeBackends('the launch operator\'s hooks', (getDevice) => {
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  beforeAll(async () => void (kernels = await testKernels(getDevice())));

  it('must be an array of functions, refused by name when the operator is made', () => {
    const made = (hooks: unknown) => () => launch(kernels.store, one, [1n, 1], { hooks: hooks as never });
    expect(made('')).toThrow(typeErrorWith('Expected `hooks` to be an array of hook functions, got ""'));
    expect(made(5)).toThrow(typeErrorWith('Expected `hooks` to be an array of hook functions, got 5'));
    expect(made(new Set([() => {}]))).toThrow(typeErrorWith('Expected `hooks` to be an array of hook functions, got a Set'));
    // eslint-disable-next-line no-sparse-arrays
    expect(made([() => {}, , () => {}])).toThrow(typeErrorWith('Expected `hooks[1]` to be a function, got undefined'));
    expect(made(['hook'])).toThrow(typeErrorWith('Expected `hooks[0]` to be a function, got "hook"'));
    expect(made([])).not.toThrow();
    expect(made(undefined)).not.toThrow();
  });

  it('are no option of stream.launch, which refuses a fourth argument rather than ignore it', async () => {
    const s = getDevice().createStream();
    const word = getDevice().allocHost('u32', 1);
    const launchWith = s.launch.bind(s) as (...args: unknown[]) => void;
    expect(() => launchWith(kernels.store, one, [word, 7], { hooks: [() => {}] })).toThrow(
      typeErrorWith('Expected `options` to be absent (hooks go to kernel.onLaunch, onLaunch or the launch operator), got {"hooks":[null]}'),
    );
    launchWith(kernels.store, one, [word, 8]);
    await s.synchronized();
    expect(word.data[0]).toBe(8);
    s.close();
  });
});
