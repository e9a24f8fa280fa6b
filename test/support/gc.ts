// Garbage collection on demand, without starting the test process with --expose-gc.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
export const gc = runInNewContext('gc') as () => void;

/** Collects until `done()` holds, at most `rounds` times with a pause between; returns done(). */
export async function collectUntil(done: () => boolean, rounds = 50): Promise<boolean> {
  for (let i = 0; i < rounds && !done(); i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  return done();
}
