// Quick checks of the paths that can hang on a GPU (host steps, held streams), each in a child
// process with a deadline, so one that hangs is reported instead of stopping the run.
// Run: node scripts/gpu-smoke.mjs   (after the build; on the default device)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cases = {
  'one step, blocking stream': { nonBlocking: false, steps: 1, launches: false },
  'one step, non-blocking stream': { nonBlocking: true, steps: 1, launches: false },
  '20 steps between launches, blocking': { nonBlocking: false, steps: 20, launches: true },
  '20 steps between launches, non-blocking': { nonBlocking: true, steps: 20, launches: true },
  '32 steps queued, non-blocking': { nonBlocking: true, steps: 32, launches: false },
};

if (process.argv[2] === 'child') {
  const { nonBlocking, steps, launches } = JSON.parse(process.argv[3]);
  const { Device } = await import('../dist/src/index.js');
  const device = Device.default();
  const module = await device.compile('extern "C" __global__ void store(unsigned* p, unsigned v) { *p = v; }', { cache: false });
  const store = module.kernel('store', ['ptr', 'u32'], { cpu: (_, [p, v]) => void (p[0] = v) });
  const stream = device.createStream({ nonBlocking });
  const slot = device.allocHost('u32', 1);
  const seen = [];
  for (let i = 0; i < steps; i++) {
    if (launches) stream.launch(store, { grid: 1, block: 1 }, [slot, i]);
    stream.hostLaunch(() => void seen.push(launches ? slot.data[0] : i));
  }
  await stream.synchronized();
  const ok = seen.length === steps && seen.every((v, i) => v === i);
  console.log(ok ? 'ok' : `wrong: ${seen}`);
  process.exit(ok ? 0 : 1);
}

let failed = 0;
for (const [name, options] of Object.entries(cases)) {
  const started = performance.now();
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), 'child', JSON.stringify(options)], { encoding: 'utf8', timeout: 15_000 });
  const ms = (performance.now() - started).toFixed(0);
  const verdict = child.error?.code === 'ETIMEDOUT' ? 'HUNG (killed after 15 s)' : child.status === 0 ? 'ok' : `failed: ${(child.stderr || child.stdout).trim().split('\n').at(-1)}`;
  if (verdict !== 'ok') failed++;
  console.log(`${name.padEnd(42)} ${verdict} (${ms} ms)`);
}
process.exit(failed ? 1 : 0);
