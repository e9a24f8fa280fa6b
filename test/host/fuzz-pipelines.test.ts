// The entry points of pipelines: lane pools, onStreams and the operators, fuzzed with an oracle of validity
// (test/support/fuzz-harness.ts): valid calls give the right results, invalid ones are refused
// in rxcuda's words with nothing enqueued, on the first call and the hundredth.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBackends } from '../support/backends.js';
import { fuzzWorld, type FuzzWorld } from '../support/fuzz-env.js';
import { FUZZ_SEED, FuzzTally, fuzzEntry } from '../support/fuzz-harness.js';
import { PIPELINE_ENTRIES, pipelineEntries } from '../support/fuzz-pipeline-entries.js';

describeBackends('pipeline entry points, fuzzed', (getDevice, backend) => {
  let world: FuzzWorld;
  const tally = new FuzzTally();
  beforeAll(async () => {
    world = await fuzzWorld(getDevice());
  });
  afterAll(() => {
    world?.close();
    console.log(tally.summary(`fuzz-pipelines [${backend}]`, FUZZ_SEED));
  });

  it('fuzzes the entry points it names', () => {
    expect(pipelineEntries(world).map((e) => e.name)).toEqual(PIPELINE_ENTRIES);
  });

  for (const name of PIPELINE_ENTRIES) {
    it(`refuses invalid calls of ${name} and gives valid ones their results, the first time and the hundredth`, async () => {
      const entry = pipelineEntries(world).find((e) => e.name === name)!;
      await fuzzEntry(entry, world, tally);
      expect(tally.entries.get(name)!.refused).toBeGreaterThan(0);
    }, 60_000);
  }
});
