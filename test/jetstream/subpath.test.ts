// The `rxcuda/jetstream` subpath as a project gets it: with the NATS client installed its exports
// are there; without it (it is an optional peer dependency), importing it fails with an error that
// says what to install, while `rxcuda` itself imports as ever.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
let app: string;

/** Runs an ES module in `app`, where `rxcuda` is installed without the NATS client. */
function run(code: string) {
  return spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: app, encoding: 'utf8', timeout: 60_000 });
}

beforeAll(() => {
  // A project with rxcuda in node_modules (copied, so that its imports resolve from here) and its
  // runtime dependencies, but not @nats-io/*.
  app = mkdtempSync(join(tmpdir(), 'rxcuda-no-nats-'));
  const installed = join(app, 'node_modules', 'rxcuda');
  mkdirSync(join(installed, 'build', 'Release'), { recursive: true });
  for (const file of ['package.json', 'binding-options.cjs', 'dist/src']) cpSync(join(root, file), join(installed, file), { recursive: true });
  cpSync(join(root, 'build', 'Release', 'rxcuda.node'), join(installed, 'build', 'Release', 'rxcuda.node'));
  for (const dependency of ['rxjs', 'eventemitter3', 'pkg-prebuilds', 'commander', 'cli-progress'])
    symlinkSync(join(root, 'node_modules', dependency), join(app, 'node_modules', dependency));
}, 60_000);

afterAll(() => rmSync(app, { recursive: true, force: true }));

describe('rxcuda/jetstream', () => {
  it('throws an error that says what to install when the NATS client is not installed', () => {
    const result = run("import('rxcuda/jetstream').then(() => console.log('imported'), (e) => console.log(e.message))");
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe(
      'rxcuda/jetstream needs the NATS client, which rxcuda leaves to your project (optional peer dependencies): ' +
        '`npm install @nats-io/jetstream@3 @nats-io/transport-node@3` (not found: @nats-io/jetstream, @nats-io/transport-node)',
    );
  });

  it('leaves `rxcuda` itself importable without the NATS client', () => {
    const result = run("const { Device } = await import('rxcuda'); console.log(Device.host().kind)");
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('host');
  });

  it('exports the source, the sink and their helpers where the NATS client is installed', async () => {
    const jetstream = await import('../../src/operators/jetstream/index.js');
    expect(Object.keys(jetstream).sort()).toEqual([
      'DEAD_LETTER_HEADERS', 'DEFAULT_FRAME_BYTES', 'JetStreamCounts', 'JetStreamError', 'JetStreamMessage', 'PEER_DEPENDENCIES', 'connectJetStream', 'fromJetStream', 'toJetStream',
    ]);
  });
});
