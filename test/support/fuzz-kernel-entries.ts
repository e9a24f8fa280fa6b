// Entry points of kernels, launch configurations and graphs for the fuzzer: launches whose stored
// value is read back, graphs whose executables are launched and read back, and hostile
// configurations (holes, getters that change, odd numbers), arguments and receivers.
import fc from 'fast-check';
import { GraphError, LaunchConfig, type Graph, type GraphExec, type GraphNode, type Kernel, type LaunchOptions } from '../../src/index.js';
import type { FuzzWorld } from './fuzz-env.js';
import { same } from './fuzz-env.js';
import { either, invalid, valid, type EntryPoint } from './fuzz-harness.js';
import { NOT_NUMBERS, NOT_OPTIONS, changing, proxied, type Hostile } from './fuzz-hostile.js';
import { hostile } from './fuzz-stream-entries.js';

type Store = Kernel<readonly ['ptr<u32>', 'u32']>;

/** The entry points {@link kernelEntries} fuzzes, in order. */
export const KERNEL_ENTRIES = [
  'Stream.launch', 'LaunchConfig.constructor', 'Module.kernel', 'Graph.addKernel', 'GraphExec.setArgs', 'GraphExec.update', 'GraphExec.launch',
];

/** Configurations that launch one thread or a few, as each form gives them. */
const CONFIGS: readonly (readonly [string, () => LaunchConfig | LaunchOptions])[] = [
  ['{ grid: 1, block: 1 }', () => ({ grid: 1, block: 1 })],
  ['{ grid: [1, 1, 1], block: [2, 1, 1] }', () => ({ grid: [1, 1, 1], block: [2, 1, 1] })],
  ['new LaunchConfig({ grid: 2, block: [4, 4] })', () => new LaunchConfig({ grid: 2, block: [4, 4] })],
  ['{ grid: [1, 2], block: 32, sharedMem: 0 }', () => ({ grid: [1, 2], block: 32, sharedMem: 0 })],
  ['{ grid: 1, block: 1024 }', () => ({ grid: 1, block: 1024 })],
];

/** Configurations no launch takes. */
export const BAD_CONFIGS: readonly Hostile[] = [
  ['{ grid: [2, , 3], block: 1 } (a hole)', () => ({ grid: [2, , 3], block: 1 })],
  ['{ grid: 1, block: [4, , 1] } (a hole)', () => ({ grid: 1, block: [4, , 1] })],
  ['{ grid: 0, block: 1 }', () => ({ grid: 0, block: 1 })],
  ['{ grid: 1, block: 2048 }', () => ({ grid: 1, block: 2048 })],
  ['{ grid: 1, block: -0 }', () => ({ grid: 1, block: -0 })],
  ['{ grid: 2 ** 53, block: 1 }', () => ({ grid: 2 ** 53, block: 1 })],
  ['{ grid: 1e308, block: 1 }', () => ({ grid: 1e308, block: 1 })],
  ['{ grid: 1, block: 1, sharedMem: -1 }', () => ({ grid: 1, block: 1, sharedMem: -1 })],
  ['{ grid: 1, block: 1, sharedMem: 2 ** 40 }', () => ({ grid: 1, block: 1, sharedMem: 2 ** 40 })],
  ['{ grid: 1, blok: 1 } (misspelt)', () => ({ grid: 1, blok: 1 })],
  ['{ grid: 1 }', () => ({ grid: 1 })],
  ['{ grid: [1, 1, 1, 1], block: 1 }', () => ({ grid: [1, 1, 1, 1], block: 1 })],
  ['a block getter that answers 2048, NaN, 0 in turn', () => changing('block', [2048, NaN, 0], { grid: 1 })],
  ...NOT_NUMBERS.filter(([label]) => label !== '[4]').map(([label, make]): Hostile => [`{ grid: ${label}, block: 1 }`, () => ({ grid: make(), block: 1 })]),
  ...NOT_OPTIONS.map(([label, make]): Hostile => [label, make]),
  ['undefined', () => undefined],
];

export function kernelEntries(w: FuzzWorld, graphs: { graph: Graph; node: GraphNode<readonly ['ptr<u32>', 'u32']>; exec: GraphExec; other: Graph; twin: () => Graph }): EntryPoint[] {
  const s = w.stream;
  const store = w.kernels.store as unknown as Store;
  /** Bad argument lists for store(ptr<u32>, u32). */
  const badArgs: readonly Hostile[] = [
    ['[u32] (too few)', () => [w.u32]],
    ['[u32, 1, 2] (too many)', () => [w.u32, 1, 2]],
    ['[u32, -1]', () => [w.u32, -1]],
    ['[u32, 2 ** 32]', () => [w.u32, 2 ** 32]],
    ['[u32, 0.5]', () => [w.u32, 0.5]],
    ['[u32, NaN]', () => [w.u32, NaN]],
    ['[u32, 1n]', () => [w.u32, 1n]],
    ['[u32, Symbol()]', () => [w.u32, Symbol('a')]],
    ['[f32, 1] (another element type)', () => [w.f32, 1]],
    ['[a closed array, 1]', () => [w.closedU32, 1]],
    ['[a Proxy around a DeviceArray, 1]', () => [proxied(w.u32), 1]],
    ['[u32, <hole>] (a hole)', () => [w.u32, , ]],
    ['[<hole>, 1] (a hole)', () => [, 1]],
    ['[a Uint32Array, 1]', () => [new Uint32Array(4), 1]],
    ['null', () => null],
    ['{ 0: u32, 1: 1, length: 2 }', () => ({ 0: w.u32, 1: 1, length: 2 })],
  ];
  const stored = (i: number, v: number) => async () => same(`u32[${i}]`, [(await w.read(w.u32))[i]], [v]);
  const slot = fc.tuple(fc.nat(63), fc.nat({ max: 2 ** 32 - 1 }));
  return [
    {
      name: 'Stream.launch',
      calls: fc.oneof(
        fc.tuple(fc.constantFrom(...CONFIGS), slot).map(([[label, config], [i, v]]) =>
          valid(`launch(store, ${label}, [u32[${i}], ${v}])`, () => s.launch(store, config(), [w.u32.subarray(i, i + 1), v]), stored(i, v))),
        hostile(BAD_CONFIGS, (label, config) => invalid(`launch(store, ${label}, [u32, 1])`, () => s.launch(store, config() as LaunchOptions, [w.u32, 1]))),
        slot.map(([i, v]) => {
          const config = changing('grid', [1, 0], { block: 1 });
          return either(`launch(store, a grid getter that answers 1 and 0 in turn, [u32[${i}], ${v}])`, () => s.launch(store, config as LaunchOptions, [w.u32.subarray(i, i + 1), v]), stored(i, v));
        }),
        hostile(badArgs, (label, args) => invalid(`launch(store, { grid: 1, block: 1 }, ${label})`, () => s.launch(store, { grid: 1, block: 1 }, args() as never))),
        hostile([['a Proxy around a Kernel', () => proxied(store)], ['null', () => null], ['{}', () => ({})], ['a Module', () => w.kernels.module]],
          (label, kernel) => invalid(`launch(${label}, { grid: 1, block: 1 }, [u32, 1])`, () => s.launch(kernel() as Store, { grid: 1, block: 1 }, [w.u32, 1]))),
        fc.constant(invalid('closedStream.launch(store, …)', () => w.closedStream.launch(store, { grid: 1, block: 1 }, [w.u32, 1]))),
      ),
    },
    {
      name: 'LaunchConfig.constructor',
      calls: fc.oneof(
        fc.tuple(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 1024 })).map(([g, b]) =>
          valid(`new LaunchConfig({ grid: ${g}, block: ${b} })`, () => new LaunchConfig({ grid: g, block: b }), (c) =>
            same('the configuration', [...c.grid, ...c.block, c.sharedMem], [g, 1, 1, b, 1, 1, 0]))),
        hostile(BAD_CONFIGS.filter(([label]) => !/block: 2048|2 \*\* 40|answers 2048/.test(label)), (label, config) => invalid(`new LaunchConfig(${label})`, () => new LaunchConfig(config() as LaunchOptions))),
      ),
    },
    {
      name: 'Module.kernel',
      calls: fc.oneof(
        fc.constant(valid("module.kernel('store', ['ptr<u32>', 'u32'], { cpu })", () => w.kernels.module.kernel('store', ['ptr<u32>', 'u32'], { cpu: (_, [p, v]) => void (p[0] = v) }), (k) =>
          same('the kernel', [k.name], ['store']))),
        hostile([['42', () => 42], ['null', () => null], ['Symbol()', () => Symbol('k')], ['a Proxy around a string', () => new Proxy(Object('store'), {})]],
          (label, name) => invalid(`module.kernel(${label}, …)`, () => w.kernels.module.kernel(name() as string, ['ptr<u32>', 'u32'], { cpu: () => {} }))),
        hostile([["['bogus']", () => ['bogus']], ["['ptr<u33>']", () => ['ptr<u33>']], ['null', () => null], ["['ptr', , 'u32'] (a hole)", () => ['ptr', , 'u32']]],
          (label, signature) => invalid(`module.kernel('store', ${label}, { cpu })`, () => w.kernels.module.kernel('store', signature() as never, { cpu: () => {} }))),
        hostile([...NOT_OPTIONS, ['{ cpuu: fn }', () => ({ cpuu: () => {} })], ['{ cpu: 42 }', () => ({ cpu: 42 })]],
          (label, options) => invalid(`module.kernel('store', […], ${label})`, () => w.kernels.module.kernel('store', ['ptr<u32>', 'u32'], options() as never))),
      ),
    },
    {
      name: 'Graph.addKernel',
      calls: fc.oneof(
        fc.tuple(fc.constantFrom(...CONFIGS), slot).map(([[label, config], [i, v]]) =>
          valid(`graph.addKernel(store, ${label}, [u32[${i}], ${v}])`, () => [graphs.other.nodes.length, graphs.other.addKernel(store, config(), [w.u32.subarray(i, i + 1), v])] as const, ([before, node]) =>
            same('the node: [index, graph, nodes]', [node.index, node.graph === graphs.other, graphs.other.nodes.length], [before, true, before + 1]))),
        hostile(BAD_CONFIGS, (label, config) => invalid(`graph.addKernel(store, ${label}, [u32, 1])`, () => graphs.other.addKernel(store, config() as LaunchOptions, [w.u32, 1]))),
        hostile(badArgs, (label, args) => invalid(`graph.addKernel(store, { grid: 1, block: 1 }, ${label})`, () => graphs.other.addKernel(store, { grid: 1, block: 1 }, args() as never))),
        hostile([['a Proxy around a Kernel', () => proxied(store)], ['null', () => null]],
          (label, kernel) => invalid(`graph.addKernel(${label}, …)`, () => graphs.other.addKernel(kernel() as Store, { grid: 1, block: 1 }, [w.u32, 1]))),
        hostile([...NOT_OPTIONS, ['{ afer: [] }', () => ({ afer: [] })], ['{ after: [null] }', () => ({ after: [null] })], ['{ after: [a node of another graph] }', () => ({ after: [graphs.node] })], ['{ after: [<hole>] }', () => ({ after: [, ] })]],
          (label, options) => invalid(`graph.addKernel(store, …, ${label})`, () => graphs.other.addKernel(store, { grid: 1, block: 1 }, [w.u32, 1], options() as never))),
      ),
    },
    {
      name: 'GraphExec.setArgs',
      calls: fc.oneof(
        fc.tuple(fc.constantFrom(undefined, ...CONFIGS), slot).map(([config, [i, v]]) =>
          valid(`exec.setArgs(node, [u32[${i}], ${v}]${config ? `, ${config[0]}` : ''}), then launch`, () => {
            graphs.exec.setArgs(graphs.node, [w.u32.subarray(i, i + 1), v], config?.[1]());
            graphs.exec.launch(s);
          }, stored(i, v))),
        hostile(BAD_CONFIGS.filter(([label]) => label !== 'undefined'), (label, config) => invalid(`exec.setArgs(node, [u32, 1], ${label})`, () => graphs.exec.setArgs(graphs.node, [w.u32, 1], config() as LaunchOptions))),
        hostile(badArgs, (label, args) => invalid(`exec.setArgs(node, ${label})`, () => graphs.exec.setArgs(graphs.node, args() as never))),
        hostile([['null', () => null], ['a node of another graph', () => graphs.other.addEmpty()], ['a Proxy around the node', () => proxied(graphs.node)], ['{ index: 0 }', () => ({ index: 0 })]],
          (label, node) => invalid(`exec.setArgs(${label}, [u32, 1])`, () => graphs.exec.setArgs(node() as typeof graphs.node, [w.u32, 1]))),
      ),
    },
    {
      name: 'GraphExec.update',
      calls: fc.oneof(
        slot.map(([i, v]) => {
          const twin = graphs.twin();
          twin.addKernel(store, { grid: 1, block: 1 }, [w.u32.subarray(i, i + 1), v]);
          return valid(`exec.update(a graph storing u32[${i}] = ${v}), then launch`, () => {
            graphs.exec.update(twin);
            graphs.exec.launch(s);
          }, stored(i, v));
        }),
        hostile([['null', () => null], ['a Proxy around a Graph', () => proxied(graphs.graph)], ['{}', () => ({})], ['a closed Graph', () => {
          const g = graphs.twin();
          g.close();
          return g;
        }]], (label, graph) => invalid(`exec.update(${label})`, () => graphs.exec.update(graph() as Graph))),
        fc.constant(invalid('exec.update(a graph of two nodes)', () => graphs.exec.update(graphs.other), { errors: [GraphError] })),
      ),
    },
    {
      name: 'GraphExec.launch',
      calls: fc.oneof(
        slot.map(([i, v]) => valid(`exec.setArgs(node, [u32[${i}], ${v}]); exec.launch(stream)`, () => {
          graphs.exec.setArgs(graphs.node, [w.u32.subarray(i, i + 1), v]);
          graphs.exec.launch(s);
        }, stored(i, v))),
        hostile([['null', () => null], ['a closed Stream', () => w.closedStream], ['a Proxy around a Stream', () => proxied(s)], ['{}', () => ({})], ['a Device', () => w.device]],
          (label, stream) => invalid(`exec.launch(${label})`, () => graphs.exec.launch(stream() as typeof s))),
      ),
    },
  ];
}
