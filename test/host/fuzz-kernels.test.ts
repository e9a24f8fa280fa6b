// Launches, launch configurations, kernels and graphs, fuzzed with an oracle of validity
// (test/support/fuzz-harness.ts): valid calls store what they were given, invalid ones are
// refused in rxcuda's words with nothing enqueued, on the first call and the hundredth.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Graph, GraphExec, GraphNode } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { fuzzWorld, type FuzzWorld } from '../support/fuzz-env.js';
import { FUZZ_SEED, FuzzTally, fuzzEntry, type FuzzEnvironment } from '../support/fuzz-harness.js';
import { KERNEL_ENTRIES, kernelEntries } from '../support/fuzz-kernel-entries.js';

describeBackends('kernel, launch and graph entry points, fuzzed', (getDevice, backend) => {
  let world: FuzzWorld;
  let graphs: { graph: Graph; node: GraphNode<readonly ['ptr<u32>', 'u32']>; exec: GraphExec; other: Graph; twin: () => Graph };
  let env: FuzzEnvironment;
  const made: Graph[] = [];
  const tally = new FuzzTally();
  beforeAll(async () => {
    world = await fuzzWorld(getDevice());
    const device = world.device;
    const store = world.kernels.store as never;
    const graph = device.createGraph();
    const node = graph.addKernel(store, { grid: 1, block: 1 }, [world.u32, 1]) as GraphNode<readonly ['ptr<u32>', 'u32']>;
    const other = device.createGraph();
    other.addEmpty();
    other.addEmpty();
    const twin = () => {
      const g = device.createGraph();
      made.push(g);
      return g;
    };
    graphs = { graph, node, exec: graph.instantiate(), other, twin };
    // A refused call adds no node to a graph either.
    env = { counters: () => [...world.counters(), graph.nodes.length, other.nodes.length], sentinel: () => world.sentinel() };
  });
  afterAll(() => {
    graphs?.exec.close();
    for (const g of [graphs?.graph, graphs?.other, ...made]) g?.close();
    world?.close();
    console.log(tally.summary(`fuzz-kernels [${backend}]`, FUZZ_SEED));
  });

  it('fuzzes the entry points it names', () => {
    expect(kernelEntries(world, graphs).map((e) => e.name)).toEqual(KERNEL_ENTRIES);
  });

  for (const name of KERNEL_ENTRIES) {
    it(`refuses invalid calls of ${name} and gives valid ones their results, the first time and the hundredth`, async () => {
      const entry = kernelEntries(world, graphs).find((e) => e.name === name)!;
      await fuzzEntry(entry, env, tally);
      expect(tally.entries.get(name)!.refused).toBeGreaterThan(0);
    }, 60_000);
  }
});
