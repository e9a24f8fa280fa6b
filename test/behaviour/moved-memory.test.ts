// Memory the user moves away while rxcuda's work reads or writes it: every
// road of user memory (registered arrays, upload sources, download targets, the host device's
// copies) and rxcuda's own (pinned arrays, lent results). Each case runs in a child process
// (fixtures/moved-memory.mjs, over the built package: `npx tsc` first), so that a crash fails its
// test instead of the run; the cases that once crashed run three times each.
import { spawnSync } from 'node:child_process';
import { markAsUntransferable } from 'node:worker_threads';
import { expect, it } from 'vitest';
import { describeBackends } from '../support/backends.js';

const fixture = new URL('./fixtures/moved-memory.mjs', import.meta.url).pathname;
const cwd = new URL('../..', import.meta.url).pathname;

/** Runs case `name` on `backend` `runs` times; each must exit 0, and print the same JSON. */
function run(name: string, backend: string, runs = 1): Record<string, unknown> {
  let last: string | undefined;
  for (let i = 0; i < runs; i++) {
    const child = spawnSync(process.execPath, ['--expose-gc', fixture, name, backend], { cwd, encoding: 'utf8', timeout: 60_000 });
    expect({ status: child.status, signal: child.signal, stderr: child.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
    const line = child.stdout.trim().split('\n').at(-1)!;
    if (last !== undefined) expect(line).toBe(last);
    last = line;
  }
  return JSON.parse(last!) as Record<string, unknown>;
}

/**
 * Whether code that ignores the untransferable mark can still detach a marked buffer: on Node 20
 * and 22 (an addon, `transfer()`); from Node 24 on V8 refuses it (and Node aborts an addon that
 * asks), so the cases of such a detach cannot arise there.
 */
const MARKED_DETACHABLE = (() => {
  const buffer = new ArrayBuffer(8);
  markAsUntransferable(buffer);
  const transfer = (buffer as { transfer?: () => ArrayBuffer }).transfer;
  if (transfer === undefined) return true; // Node 20: the mark only makes postMessage copy
  try {
    transfer.call(buffer);
    return true;
  } catch {
    return false;
  }
})();
const NOT_DETACHABLE = `(skipped: Node ${process.versions.node} cannot detach a buffer marked untransferable)`;

const KEPT = 'Expected `data` to be a TypedArray whose buffer is attached and of fixed length, got';

describeBackends('memory the user moves away', (_device, backend) => {
  it('writes a copy into a registered array transferred away and collected, and not into the transfer', () => {
    const out = run('register-transfer', backend, 3);
    // Node 20 copies an untransferable buffer; later versions refuse to transfer it: either way it stays.
    expect(out.moved).toBe(false);
    expect(out.written).toEqual([0x41414141, 0x41414141, 0x41414141]);
    if (out.refused === undefined) expect(out.clone).toBe(0);
  });

  it('refuses to register an array over a resizable buffer, enqueuing nothing', () => {
    expect(run('register-resizable', backend, 3)).toEqual({
      registered: { type: 'TypeError', message: `${KEPT} a Uint32Array over a resizable ArrayBuffer` },
      enqueued: 0,
    });
  });

  it('fills download targets whose buffers are transferred while the copy threads write them', () => {
    const out = run('into-transfer', backend, 3);
    expect(out.values).toEqual([[3, 3], [3, 3], [3, 3], [3, 3]]);
    expect(out.moved).toEqual([false, false, false, false]);
  });

  it('refuses to register a detached array, with its own message', () => {
    expect(run('register-detached', backend)).toEqual({ error: { type: 'TypeError', message: `${KEPT} a detached Uint32Array` } });
  });

  it.skipIf(!MARKED_DETACHABLE)(`refuses every command on a registered array detached by code that ignores the mark${MARKED_DETACHABLE ? '' : ` ${NOT_DETACHABLE}`}`, () => {
    const out = run('register-detached-later', backend) as { refusals: Record<string, { error: { type: string; message: string } }>; enqueued: number };
    const moved = 'memory whose array is attached, got a HostArray over a detached Uint32Array';
    expect(out.refusals).toEqual({
      copyTo: { error: { type: 'TypeError', message: `Expected \`dst\` to be ${moved}` } },
      copyFrom: { error: { type: 'TypeError', message: `Expected \`src\` to be ${moved}` } },
      fill: { error: { type: 'TypeError', message: `Expected \`dst\` to be ${moved}` } },
      builtin: { error: { type: 'TypeError', message: `Expected \`args[0]\` to be ${moved}` } },
      subarray: { error: { type: 'TypeError', message: 'Expected `array` to be a HostArray whose array is attached, got a HostArray over a detached Uint32Array' } },
    });
    expect(out.enqueued).toBe(0);
  });

  it.skipIf(!MARKED_DETACHABLE)(`refuses a queued copy into a registered array detached while it waited, and a graph launch that copies into it${MARKED_DETACHABLE ? '' : ` ${NOT_DETACHABLE}`}`, () => {
    expect(run('register-detached-queued', backend)).toEqual({
      errors: [{ message: 'Expected `dst` to be memory whose array is attached, got a HostArray over a detached Uint32Array', kind: 'enqueue' }],
      launch: { error: { type: 'TypeError', message: "Expected `executable` to be an executable whose nodes' registered arrays are attached, got one whose registered array was detached" } },
    });
  });

  it("refuses to upload a detached array or one over a resizable buffer, in rxcuda's words", () => {
    const expected = (what: string) => {
      const message = `Expected \`select(value)\` to be a TypedArray whose buffer is attached and of fixed length, got ${what}`;
      return { error: { type: 'PipelineError', message: `upload(x) failed for value #0: ${message}`, cause: { type: 'TypeError', message } } };
    };
    expect(run('upload-refused', backend)).toEqual({ detached: expected('a detached Float32Array'), resizable: expected('a Float32Array over a resizable ArrayBuffer') });
  });

  it('uploads arrays whose buffers are transferred while the copy threads read them', () => {
    const out = run('upload-transfer', backend);
    expect(out.values).toEqual([[1, 1, 1], [2, 2, 2], [3, 3, 3], [4, 4, 4]]);
    expect(out.moved).toEqual([false, false, false, false]);
  });

  it('leaves small upload sources and download targets transferable: they are copied on the main thread at once', () => {
    expect(run('small-not-marked', backend)).toEqual({ value: 4, moved: [true, true] });
  });

  it('refuses to download into a detached array', () => {
    const message = 'Expected `into(work)` to be a Float32Array of at least 16 elements, got a detached Float32Array';
    expect(run('into-detached', backend)).toEqual({
      error: { type: 'PipelineError', message: `download(x) failed for value #0: ${message}`, cause: { type: 'TypeError', message } },
    });
  });

  it("keeps rxcuda's pinned arrays and lent results readable after a transfer of their buffers", () => {
    expect(run('rxcuda-memory-transfer', backend)).toEqual({ pinned: { moved: false, value: 7 }, lent: { moved: false, value: 9 } });
  });

  it('finishes a device copy into a registered array transferred away while it runs', () => {
    expect(run('device-copy-transfer', backend)).toEqual({ moved: false, written: [5, 5] });
  });

  it('registers and uploads arrays over SharedArrayBuffers', () => {
    expect(run('shared-buffers', backend)).toEqual({ registered: 11, uploaded: 12 });
  });

  it("uploads rxcuda's own pinned arrays and lent results off the main thread, then closes and gives them back", () => {
    expect(run('own-upload-close', backend, 3)).toEqual({ value: [4, 4] });
  });

  it("refuses a view of a closed pinned array in rxcuda's words", () => {
    expect(run('closed-subarray', backend)).toEqual({ error: { type: 'TypeError', message: 'Expected `array` to be an open HostArray, got a closed HostArray' } });
  });
});
