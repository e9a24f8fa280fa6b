// examples/jetstream-worker as a user runs it, against a real nats-server: it makes the streams,
// publishes frames, processes them all and says so.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startNats, type NatsServers } from '../support/nats.js';
import { describeWithTool } from '../support/tools.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let nats: NatsServers;

beforeAll(async () => {
  nats = await startNats();
});

afterAll(() => nats.stop());

describeWithTool('nats-server', 'examples/jetstream-worker', { timeout: 60_000 }, () => {
  it('processes the frames it published and prints its counters', async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['dist/examples/jetstream-worker.js', '--servers', nats.servers[0]!, '--setup', '200', '--idle', '500'], { cwd: root, timeout: 50_000 });
    expect(stdout).toContain('worker done: pulled 200, acked 200, nak 0, redelivered 0, dead-lettered 0, duplicate results 0');
    expect(stderr).toMatch(/200 acked \| pulled 200 \| in flight 0/);
  });
});
