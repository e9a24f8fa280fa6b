// A process whose script ends while a host step never settles: how it exits, in a child process
// (the built package, as a user runs it).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const entry = new URL('../../dist/src/index.js', import.meta.url).href;

/** Runs `body` as an ES module after `s`, a host stream with an `error` listener, is made. */
function script(body: string) {
  const source = `
    const { Device } = await import(${JSON.stringify(entry)});
    const s = Device.host().createStream();
    s.on('error', (e) => console.log('error: ' + e.name));
    const start = performance.now();
    process.on('exit', () => console.log('ran ' + Math.round(performance.now() - start) + ' ms'));
    ${body}`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8', timeout: 20_000 });
  const ms = Number(/ran (\d+) ms/.exec(run.stdout)?.[1]);
  return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr, ms };
}

describe('a process ending with a host step that never settles', () => {
  it('exits at once when the stream is closed, though the step has a long timeout', () => {
    const run = script(`s.hostLaunch(() => new Promise(() => {}), { timeout: 60_000 }); s.close();`);
    expect([run.status, run.signal]).toEqual([0, null]);
    expect(run.ms).toBeLessThan(3000); // far below the timeout; loose for loaded machines
    expect(run.stdout).not.toContain('error:');
  });

  it('gives the step up after its timeout and runs what waits behind it, then exits', () => {
    const run = script(`
      s.hostLaunch(() => new Promise(() => {}), { timeout: 200 });
      await s.synchronized();
      console.log('synchronized');`);
    expect([run.status, run.signal]).toEqual([0, null]);
    expect(run.stdout).toContain('error: HostStepTimeoutError\nsynchronized\n');
    expect(run.ms).toBeGreaterThanOrEqual(195);
    expect(run.ms).toBeLessThan(5000);
  });

  it('exits at once without a timeout too: a pending step holds no handle', () => {
    for (const end of ['s.close();', '']) {
      const run = script(`s.hostLaunch(() => new Promise(() => {})); ${end}`);
      expect([run.status, run.signal]).toEqual([0, null]);
      expect(run.ms).toBeLessThan(3000); // at once: no timer, no handle (loose for loaded machines)
    }
  });

  it("ends with Node's code 13 (unsettled top-level await) when the script awaits work behind such a step", () => {
    const run = script(`s.hostLaunch(() => new Promise(() => {})); await s.synchronized(); console.log('never');`);
    expect(run.status).toBe(13);
    expect(run.stdout).not.toContain('never');
    expect(run.ms).toBeLessThan(3000); // at once (loose for loaded machines)
  });
});
