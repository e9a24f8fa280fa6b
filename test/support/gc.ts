// Garbage collection on demand: the test processes run with --expose-gc (vitest.config.ts).
export const gc = (globalThis as { gc?: () => void }).gc ?? (() => {
  throw new Error('run the tests with node --expose-gc');
});

/** Collects until `done()` holds, at most `rounds` times with a pause between; returns done(). */
export async function collectUntil(done: () => boolean, rounds = 50): Promise<boolean> {
  for (let i = 0; i < rounds && !done(); i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  return done();
}
