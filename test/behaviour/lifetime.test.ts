// Whole-process behaviour of pending completions: exit, keep-alive, and memory over many steps.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describeBackends } from '../support/backends.js';
import { gc } from '../support/gc.js';

const fixture = fileURLToPath(new URL('./fixtures/pending.mjs', import.meta.url));

function run(mode: string, backend: string): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fixture, mode, backend], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      if (mode === 'sigterm' && stdout.includes('pending')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describeBackends('a process with completions pending', (_, backend) => {
  it('stays alive until all 1000 have run, then exits 0 by itself', async () => {
    const result = await run('end', backend);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('{"ran":1000,"code":0}');
  });

  it('exits at once on process.exit, without crashing', async () => {
    const result = await run('exit', backend);
    expect([result.code, result.signal]).toEqual([0, null]);
    expect(result.stdout).toContain('"code":0');
  });

  it('exits with the uncaught exception, without crashing', async () => {
    const result = await run('throw', backend);
    expect([result.code, result.signal]).toEqual([1, null]);
    expect(result.stderr).toContain('deliberate');
  });

  it('exits by itself after spinning waits, whose watcher saw the writes without waking it', async () => {
    const result = await run('spin', backend);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('{"ran":300,"code":0}');
  });

  it('ends on SIGTERM like any Node.js process', async () => {
    const result = await run('sigterm', backend);
    expect([result.code, result.signal]).toEqual([null, 'SIGTERM']);
  });
});

describeBackends('many host steps', (getDevice) => {
  // AddressSanitizer keeps freed memory in quarantine: RSS there measures the sanitizer.
  it.skipIf(process.env.RXCUDA_SANITIZER)('run 10^5 steps with less than 20 MB of RSS growth', async () => {
    const device = getDevice();
    const s = device.createStream();
    let ran = 0;
    const step = () => void ran++;
    const batch = async () => {
      for (let i = 0; i < 25; i++) s.hostLaunch(step, { userData: new Uint8Array(16) });
      await s.synchronized();
    };
    // V8 grows its young generation by about 30 MB under this allocation rate, once: warm up
    // past that, so what is measured is what 10^5 more steps keep.
    for (let i = 0; i < 2000; i++) await batch();
    gc();
    const before = process.memoryUsage();
    for (let i = 0; i < 4000; i++) await batch();
    gc();
    const after = process.memoryUsage();
    expect(ran).toBe(150_000);
    expect(after.rss - before.rss).toBeLessThan(20 * 2 ** 20);
    expect(after.heapUsed - before.heapUsed).toBeLessThan(2 ** 20);
    s.close();
  });
});
