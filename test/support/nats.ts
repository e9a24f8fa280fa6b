// Real nats-server processes for the JetStream tests: one node, or a cluster, each node with
// JetStream on a free loopback port and its own temporary store, stopped when the test ends.
// The server is $NATS_SERVER, else the first on the PATH or in the system's sbin folders
// (support/tools.ts); a test file without it skips (describeWithTool('nats-server', …)), saying
// how to install it, except where CI expects it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolPath } from './tools.js';

/**
 * The first port of the kernel's ephemeral range: outgoing connections (a node's routes to the
 * others, the clients) take their local ports from it, so a port picked there and freed again can
 * be taken by one of them before the server that was meant to bind it starts.
 */
function ephemeralStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

const given = new Set<number>();

/** Whether `port` can be bound on the loopback address now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free TCP port on the loopback address, below the ephemeral range (see {@link ephemeralStart})
 * and not given before in this process: free when asked, and nothing else takes it meanwhile.
 */
export async function freePort(): Promise<number> {
  const top = ephemeralStart();
  const bottom = Math.min(10_000, top - 1000);
  for (;;) {
    const port = bottom + Math.floor(Math.random() * (top - bottom));
    if (given.has(port) || !(await bindable(port))) continue;
    given.add(port);
    return port;
  }
}

export interface NatsNode {
  readonly name: string;
  readonly url: string;
  readonly monitor: string;
  /** The node's process (a new one after {@link restart}). */
  readonly process: ChildProcess;
  /** Stops the node (SIGTERM, SIGKILL after 5 s) and waits for it to exit. */
  stop(): Promise<void>;
  /** Kills the node at once (SIGKILL) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts a node stopped or killed before again, on the same ports and store, and waits until it is ready. */
  restart(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function json(url: string): Promise<any> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

interface NodePlan {
  name: string;
  port: number;
  monitorPort: number;
  clusterPort?: number;
}

function launch(plan: NodePlan, dir: string, options: { maxPayload?: number; routes?: number[] }, log: string[], clustered: boolean): NatsNode {
  const store = join(dir, plan.name);
  const lines = [
    `server_name: ${plan.name}`,
    `listen: 127.0.0.1:${plan.port}`,
    `http: 127.0.0.1:${plan.monitorPort}`,
    `jetstream { store_dir: "${store}", max_memory_store: 2G, max_file_store: 8G }`,
  ];
  if (options.maxPayload) lines.push(`max_payload: ${options.maxPayload}`);
  if (plan.clusterPort !== undefined)
    lines.push(`cluster { name: rxcuda-test, listen: 127.0.0.1:${plan.clusterPort}, routes: [${(options.routes ?? []).map((p) => `nats://127.0.0.1:${p}`).join(', ')}] }`);
  const config = join(dir, `${plan.name}.conf`);
  writeFileSync(config, lines.join('\n') + '\n');
  const start = () => {
    const child = spawn(toolPath('nats-server'), ['-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      log.push(text);
      if (log.length > 200) log.shift();
    });
    return child;
  };
  let child = start();
  const node: NatsNode = {
    name: plan.name,
    url: `nats://127.0.0.1:${plan.port}`,
    monitor: `http://127.0.0.1:${plan.monitorPort}`,
    get process() {
      return child;
    },
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited(child);
      clearTimeout(timer);
    },
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async restart() {
      await exited(child);
      child = start();
      await ready(node, log, clustered);
    },
  };
  return node;
}

/** Waits until `node` answers its health check with JetStream ready (and, in a cluster, a meta leader). */
async function ready(node: NatsNode, log: string[], clustered: boolean, timeout = 30_000): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (node.process.exitCode !== null) throw new Error(`nats-server ${node.name} exited (${node.process.exitCode}): ${log.join('').slice(-2000)}`);
    try {
      const health = await json(`${node.monitor}/healthz`);
      if (health.status === 200) {
        if (!clustered) return;
        const jsz = await json(`${node.monitor}/jsz`);
        if (jsz.body?.meta_cluster?.leader) return;
      }
    } catch {}
    if (Date.now() > deadline) throw new Error(`nats-server ${node.name} was not ready within ${timeout} ms: ${log.join('').slice(-2000)}`);
    await sleep(50);
  }
}

export interface NatsServers {
  readonly nodes: readonly NatsNode[];
  /** Every node's client URL. */
  readonly servers: string[];
  readonly dir: string;
  /** Stops every node still running and removes the stores. */
  stop(): Promise<void>;
}

/** Starts `nodes` servers (one: a single node; more: a cluster of them) and waits until they are ready. */
export async function startNats(options: { nodes?: number; maxPayload?: number } = {}): Promise<NatsServers> {
  const count = options.nodes ?? 1;
  const dir = mkdtempSync(join(tmpdir(), 'rxcuda-nats-'));
  const plans: NodePlan[] = [];
  for (let i = 0; i < count; i++) {
    const plan: NodePlan = { name: `n${i + 1}`, port: await freePort(), monitorPort: await freePort() };
    if (count > 1) plan.clusterPort = await freePort();
    plans.push(plan);
  }
  const log: string[] = [];
  const routes = plans.map((p) => p.clusterPort!).filter((p) => p !== undefined);
  const nodes = plans.map((plan) => launch(plan, dir, { ...(options.maxPayload ? { maxPayload: options.maxPayload } : {}), routes }, log, count > 1));
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(nodes.map((node) => ready(node, log, count > 1)));
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes, servers: nodes.map((n) => n.url), dir, stop };
}

/** The client connections of `node` subscribed to `subject` (as its monitoring endpoint lists them). */
export async function subscribers(node: NatsNode, subject: string): Promise<number> {
  const { body } = await json(`${node.monitor}/connz?subs=1`);
  return (body?.connections ?? []).filter((c: { subscriptions_list?: string[] }) => c.subscriptions_list?.includes(subject)).length;
}
