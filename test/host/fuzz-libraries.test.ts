// device.blas, device.fft and the gemm and fft operators, fuzzed with an oracle of validity
// (test/support/fuzz-harness.ts): valid calls give products and transforms within the stated
// bounds, invalid ones are refused in rxcuda's words with nothing enqueued, on the first call and
// the hundredth (also when they repeat a valid call's arrays and option values).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBackends } from '../support/backends.js';
import { fuzzWorld, type FuzzWorld } from '../support/fuzz-env.js';
import { FUZZ_SEED, FuzzTally, fuzzEntry } from '../support/fuzz-harness.js';
import { LIBRARY_ENTRIES, libraryArrays, libraryEntries, type LibraryArrays } from '../support/fuzz-library-entries.js';

describeBackends('library entry points, fuzzed', (getDevice, backend) => {
  let world: FuzzWorld;
  let arrays: LibraryArrays;
  const tally = new FuzzTally();
  beforeAll(async () => {
    world = await fuzzWorld(getDevice());
    arrays = libraryArrays(world.stream);
    await world.stream.synchronized();
  });
  afterAll(() => {
    arrays?.close();
    world?.close();
    console.log(tally.summary(`fuzz-libraries [${backend}]`, FUZZ_SEED));
  });

  it('fuzzes the entry points it names', () => {
    expect(libraryEntries(world, arrays).map((e) => e.name)).toEqual(LIBRARY_ENTRIES);
  });

  for (const name of LIBRARY_ENTRIES) {
    it(`refuses invalid calls of ${name} and gives valid ones their results, the first time and the hundredth`, async () => {
      const entry = libraryEntries(world, arrays).find((e) => e.name === name)!;
      await fuzzEntry(entry, world, tally);
      expect(tally.entries.get(name)!.refused).toBeGreaterThan(0);
    }, 60_000);
  }
});
