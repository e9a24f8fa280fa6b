// Quick checks of the paths that hung on a GPU before the scheduler (host steps, held streams,
// many streams), each in a child process with a deadline, so one that hangs is reported instead of stopping the run.
// Run: node scripts/gpu-smoke.mjs   (after the build; on the default device)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// streams × steps host steps (with a kernel before each when `launches`), after a kernel of
// `kernelMs` on each stream; then `synchronized()` on all of them, or the script just ends.
const cases = {
  'one step, blocking stream': { nonBlocking: false, steps: 1, launches: false },
  'one step, non-blocking stream': { nonBlocking: true, steps: 1, launches: false },
  '20 steps between launches, blocking': { nonBlocking: false, steps: 20, launches: true },
  '20 steps between launches, non-blocking': { nonBlocking: true, steps: 20, launches: true },
  '32 steps queued, non-blocking': { nonBlocking: true, steps: 32, launches: false },
  '18 streams, one unfinished step each': { streams: 18, steps: 1, launches: false, unfinished: true },
  '64 streams, one unfinished step each': { streams: 64, steps: 1, launches: false, unfinished: true },
  '16 streams × 32 steps between launches': { streams: 16, steps: 32, launches: true },
  '40 streams, a 0.5 s kernel, 25 steps, script ends': { streams: 40, steps: 25, launches: false, kernelMs: 500, end: true },
  '1000 streams × 20 steps between launches': { streams: 1000, steps: 20, launches: true },
};

if (process.argv[2] === 'child') await child();
else parent();

async function child() {
  const { nonBlocking = true, streams = 1, steps, launches, unfinished = false, kernelMs = 0, end = false } = JSON.parse(process.argv[3]);
  const { Device } = await import('../dist/src/index.js');
  const device = Device.default();
  const module = await device.compile(`
    extern "C" __global__ void store(unsigned* p, unsigned v) { *p = v; }
    extern "C" __global__ void spin(unsigned long long ns) {
      unsigned long long start, now;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
      do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < ns);
    }`, { cache: false });
  const store = module.kernel('store', ['ptr', 'u32'], { cpu: (_, [p, v]) => void (p[0] = v) });
  const spin = module.kernel('spin', ['u64'], { cpu: (_, [ns]) => new Promise((r) => setTimeout(r, Number(ns) / 1e6)) });
  const lanes = Array.from({ length: streams }, () => ({ stream: device.createStream({ nonBlocking }), slot: device.allocHost('u32', 1), seen: [] }));
  const releases = [];
  for (const { stream, slot, seen } of lanes) {
    if (kernelMs) stream.launch(spin, { grid: 1, block: 1 }, [BigInt(kernelMs) * 1_000_000n]);
    for (let i = 0; i < steps; i++) {
      if (launches) stream.launch(store, { grid: 1, block: 1 }, [slot, i]);
      if (unfinished) stream.hostLaunch(() => new Promise((resolve) => releases.push(resolve)));
      stream.hostLaunch(() => void seen.push(launches ? slot.data[0] : i));
    }
  }
  const check = () => {
    const ok = lanes.every(({ seen }) => seen.length === steps && seen.every((v, i) => v === i));
    console.log(ok ? 'ok' : `wrong: ${lanes.map((l) => l.seen.length)}`);
    return ok;
  };
  if (end) {
    process.on('exit', (code) => void (process.exitCode = code || (check() ? 0 : 1)));
  } else {
    const all = Promise.all(lanes.map(({ stream }) => stream.synchronized()));
    await new Promise((r) => setTimeout(r, 20));
    releases.forEach((release) => release());
    await all;
    process.exit(check() ? 0 : 1);
  }
}

function parent() {
  let failed = 0;
  for (const [name, options] of Object.entries(cases)) {
    const started = performance.now();
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), 'child', JSON.stringify(options)], { encoding: 'utf8', timeout: 30_000 });
    const ms = (performance.now() - started).toFixed(0);
    const verdict = child.error?.code === 'ETIMEDOUT' ? 'HUNG (killed after 30 s)' : child.status === 0 ? 'ok' : `failed (${child.signal ?? `exit ${child.status}`}): ${(child.stderr || child.stdout).trim().split('\n').at(-1)}`;
    if (verdict !== 'ok') failed++;
    console.log(`${name.padEnd(52)} ${verdict} (${ms} ms)`);
  }
  process.exit(failed ? 1 : 0);
}
