// The leak checker of scripts/asan.sh (LeakSanitizer, in the environment of scripts/asan-env.sh)
// can fail: a child process that leaks on purpose, from native code that JavaScript called, as an
// addon's leak would be made, is reported; the same process without the leak is not.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
// The ASan build where scripts/asan.sh made one, else the plain build: the runtime is preloaded.
const build = existsSync(`${root}build-asan/Release/rxcuda_test.node`) ? 'build-asan' : 'build';
const runtime = (() => {
  try {
    // Not under the preloaded runtime of a sanitizer run: gcc leaks, and would fail.
    const { LD_PRELOAD: _, ...env } = process.env;
    return execFileSync('gcc', ['-print-file-name=libasan.so'], { encoding: 'utf8', env }).trim();
  } catch {
    return '';
  }
})();
const missing = runtime.startsWith('/') && existsSync(runtime) ? '' : 'no AddressSanitizer runtime here (gcc -print-file-name=libasan.so)';

const child = `(async () => {
  const { Device } = await import(${JSON.stringify(`${root}dist/src/index.js`)});
  const stream = Device.host().createStream();
  let ran = 0;
  stream.hostLaunch(() => void ran++);
  await stream.synchronized();
  stream.close();
  if (process.argv[1] === 'leak') require(${JSON.stringify(`${root}${build}/Release/rxcuda_test.node`)}).leakOnPurpose(12345);
  console.log('ran', ran);
})();`;

function underChecker(mode: 'leak' | 'none') {
  // The script's own runtime and options, whatever the run that started this one set: the shell
  // and what it runs before node (readlink) run without the runtime, as in scripts/asan.sh.
  const env: NodeJS.ProcessEnv = { ...process.env, RXCUDA_ASAN_BUILD: build };
  for (const name of ['LD_PRELOAD', 'ASAN_OPTIONS', 'LSAN_OPTIONS', 'UBSAN_OPTIONS']) delete env[name];
  return spawnSync('bash', ['-c', 'source scripts/asan-env.sh && exec node -e "$0" "$1"', child, mode], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
}

describe.skipIf(missing)(`the leak checker${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('reports a leak made in a call from JavaScript, through the suppressions, and fails the process', () => {
    const run = underChecker('leak');
    expect(run.stdout).toContain('ran 1');
    expect(run.stderr).toContain('ERROR: LeakSanitizer: detected memory leaks');
    expect(run.stderr).toContain('Direct leak of 12345 byte(s) in 1 object(s) allocated from:');
    expect(run.stderr).toMatch(/in \(anonymous namespace\)::leakOnPurpose/);
    // The stack passes through V8's own frames, which a suppression must not match.
    expect(run.stderr).toMatch(/leakOnPurpose[^]*v8::internal::/);
    expect([run.status, run.signal]).not.toEqual([0, null]);
  });

  it('reports nothing for the same process without the leak', () => {
    const run = underChecker('none');
    expect(run.stdout).toContain('ran 1');
    expect(run.stderr).not.toContain('LeakSanitizer');
    expect([run.status, run.signal]).toEqual([0, null]);
  });
});
