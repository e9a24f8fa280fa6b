// Streams that ran a kernel of a long-lived module (issue 27's leak): 10^5 of them, then 1000
// pipelines, in child processes (test/host/fixtures/stream-rounds.mjs, over the built package:
// `npx tsc` first), once as it is and once with the leak put back, which the same measurement
// must report.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/stream-rounds.mjs', import.meta.url));
/** The most heap 9 x 10^4 more streams may add, and 900 more pipelines, in MiB. */
const STREAMS_BOUND_MIB = 2;
const PIPELINES_BOUND_MIB = 1;

interface Rounds {
  streams: number;
  pipelines: number;
  kept: number;
  seconds: number;
  heapMiB: { at1e4: number; at1e5: number; pipelinesAt100: number; pipelinesAt1000: number };
  lastStreamCollected: boolean;
}

function rounds(leak: boolean): Promise<Rounds> {
  const env = { ...process.env, LEAK_PUT_BACK: leak ? '1' : '' };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', fixture], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`stream-rounds.mjs ended with ${signal ?? code}: ${stderr.slice(0, 2000)}`));
      console.log(`10^5 streams and 1000 pipelines${leak ? ', the leak put back' : ''}: ${stdout.trim()}`);
      resolve(JSON.parse(stdout) as Rounds);
    });
  });
}

const streamsGrowth = (r: Rounds) => r.heapMiB.at1e5 - r.heapMiB.at1e4;
const pipelinesGrowth = (r: Rounds) => r.heapMiB.pipelinesAt1000 - r.heapMiB.pipelinesAt100;

// AddressSanitizer's quarantine and its slower threads measure the sanitizer, not the heap.
describe.skipIf(process.env.RXCUDA_SANITIZER)('10^5 streams that launched kernels of long-lived modules', () => {
  // Both run at once, each in its own process: about 40 s on 2 cores.
  let plain: Promise<Rounds>;
  let leaking: Promise<Rounds>;
  beforeAll(() => {
    plain = rounds(false);
    leaking = rounds(true);
    plain.catch(() => {});
    leaking.catch(() => {});
  });

  it(`keep the heap flat (under ${STREAMS_BOUND_MIB} MiB from 10^4 to 10^5 streams, ${PIPELINES_BOUND_MIB} MiB from 100 to 1000 pipelines), and let the last stream be collected`, async () => {
    const r = await plain;
    expect([r.streams, r.pipelines, r.kept]).toEqual([100_000, 1000, 0]);
    expect(streamsGrowth(r)).toBeLessThan(STREAMS_BOUND_MIB);
    expect(pipelinesGrowth(r)).toBeLessThan(PIPELINES_BOUND_MIB);
    expect(r.lastStreamCollected).toBe(true);
  }, 240_000);

  it('report the leak put back (a module keeping every stream) as growth past the bounds', async () => {
    const r = await leaking;
    expect(r.kept).toBeGreaterThanOrEqual(100_000);
    expect(streamsGrowth(r)).toBeGreaterThanOrEqual(STREAMS_BOUND_MIB);
    expect(pipelinesGrowth(r)).toBeGreaterThanOrEqual(PIPELINES_BOUND_MIB);
    expect(r.lastStreamCollected).toBe(false);
  }, 240_000);
});
