// rxcuda/jetstream's entry points, fuzzed without a server with an oracle of validity
// (test/support/fuzz-harness.ts): valid calls give the right results, invalid ones are refused
// in rxcuda's words with nothing enqueued, on the first call and the hundredth.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBackends } from '../support/backends.js';
import { fuzzWorld, type FuzzWorld } from '../support/fuzz-env.js';
import { FUZZ_SEED, FuzzTally, fuzzEntry } from '../support/fuzz-harness.js';
import { JETSTREAM_ENTRIES, jetstreamEntries } from '../support/fuzz-jetstream-entries.js';

describeBackends('rxcuda/jetstream entry points, fuzzed', (getDevice, backend) => {
  let world: FuzzWorld;
  const tally = new FuzzTally();
  beforeAll(async () => {
    world = await fuzzWorld(getDevice());
  });
  afterAll(() => {
    world?.close();
    console.log(tally.summary(`fuzz-jetstream [${backend}]`, FUZZ_SEED));
  });

  it('fuzzes the entry points it names', () => {
    expect(jetstreamEntries(world).map((e) => e.name)).toEqual(JETSTREAM_ENTRIES);
  });

  for (const name of JETSTREAM_ENTRIES) {
    it(`refuses invalid calls of ${name} and gives valid ones their results, the first time and the hundredth`, async () => {
      const entry = jetstreamEntries(world).find((e) => e.name === name)!;
      await fuzzEntry(entry, world, tally);
      expect(tally.entries.get(name)!.refused).toBeGreaterThan(0);
    }, 60_000);
  }
});
