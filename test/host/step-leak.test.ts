// Leaks over 10^6 host steps: the memory kept between 10^5 and 10^6 steps, measured in child
// processes (test/host/fixtures/step-rounds.mjs), once as it is and once with a leak injected on
// purpose, which the same measurement must report.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/step-rounds.mjs', import.meta.url));
/** The most RSS 9 x 10^5 more steps may add, in MiB. */
const BOUND_MIB = 16;

interface Rounds {
  ran: number;
  kept: number;
  seconds: number;
  rssMiB: { at1e5: number; at1e6: number };
  heapMiB: { at1e5: number; at1e6: number };
}

function rounds(leak: boolean): Promise<Rounds> {
  const args = ['--expose-gc', '--min-semi-space-size=16', '--max-semi-space-size=16', fixture];
  const env = { ...process.env, LEAK_ON_PURPOSE: leak ? '1' : '' };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`step-rounds.mjs ended with ${signal ?? code}: ${stderr.slice(0, 2000)}`));
      const result = JSON.parse(stdout) as Rounds;
      console.log(`10^6 host steps${leak ? ', leaking on purpose' : ''}: ${stdout.trim()}`);
      resolve(result);
    });
  });
}

const growth = (r: Rounds) => r.rssMiB.at1e6 - r.rssMiB.at1e5;

// AddressSanitizer keeps freed memory in quarantine: RSS there measures the sanitizer.
describe.skipIf(process.env.RXCUDA_SANITIZER)('10^6 host steps in rounds', () => {
  // Both run at once, each in its own process: about 30 s on 2 cores.
  let plain: Promise<Rounds>;
  let leaking: Promise<Rounds>;
  beforeAll(() => {
    plain = rounds(false);
    leaking = rounds(true);
    plain.catch(() => {});
    leaking.catch(() => {});
  });

  it(`add less than ${BOUND_MIB} MiB of RSS between 10^5 and 10^6 steps, after garbage collection`, async () => {
    const r = await plain;
    expect([r.ran, r.kept]).toEqual([1_000_000, 0]);
    expect(growth(r)).toBeLessThan(BOUND_MIB);
    expect(r.heapMiB.at1e6 - r.heapMiB.at1e5).toBeLessThan(1);
  }, 180_000);

  it('report a leak of one small object a step, injected on purpose, as growth past the bound', async () => {
    const r = await leaking;
    expect([r.ran, r.kept]).toEqual([1_000_000, 1_000_000]);
    expect(growth(r)).toBeGreaterThanOrEqual(BOUND_MIB);
  }, 180_000);
});
