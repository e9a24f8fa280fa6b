// The suite of one group of fuzzed entry points over a plain world (fuzz-env.ts): one test that
// the group names what it fuzzes, then one per entry point, run with an oracle of validity
// (fuzz-harness.ts) on each backend; the calls made are counted at the end.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBackends } from './backends.js';
import { fuzzWorld, type FuzzWorld } from './fuzz-env.js';
import { FUZZ_SEED, FuzzTally, fuzzEntry, type EntryPoint } from './fuzz-harness.js';

/** `describeBackends(title)` fuzzing `names`, the entry points `entries` makes in a world; `tag` names the count printed. */
export function fuzzSuite(title: string, tag: string, names: readonly string[], entries: (world: FuzzWorld) => EntryPoint[]): void {
  describeBackends(title, (getDevice, backend) => {
    let world: FuzzWorld;
    const tally = new FuzzTally();
    beforeAll(async () => {
      world = await fuzzWorld(getDevice());
    });
    afterAll(() => {
      world?.close();
      console.log(tally.summary(`${tag} [${backend}]`, FUZZ_SEED));
    });

    it('fuzzes the entry points it names', () => {
      expect(entries(world).map((e) => e.name)).toEqual(names);
    });

    for (const name of names) {
      it(`refuses invalid calls of ${name} and gives valid ones their results, the first time and the hundredth`, async () => {
        const entry = entries(world).find((e) => e.name === name)!;
        await fuzzEntry(entry, world, tally);
        expect(tally.entries.get(name)!.refused).toBeGreaterThan(0);
      }, 60_000);
    }
  });
}
