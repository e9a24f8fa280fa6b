// Streams, consumers, inputs and results of the JetStream tests, over real servers (nats.ts).
import { fork, type ChildProcess } from 'node:child_process';
import { AckPolicy, StorageType, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';

export const INPUT = 'FRAMES';
export const OUTPUT = 'RESULTS';
export const DEAD = 'DEAD';
export const DURABLE = 'workers';

/** FNV-1a over the bytes (as the worker fixture computes it). */
export function checksum(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193) >>> 0;
  return h;
}

/** Input number `i` (its stream sequence is i + 1): `bytes` of u32 words that depend on `i`. */
export function input(i: number, bytes: number): Uint8Array {
  const words = new Uint32Array(bytes / 4);
  for (let j = 0; j < words.length; j++) words[j] = (Math.imul(i + 1, 0x9e3779b1) + j * 0x85ebca6b) >>> 0;
  return new Uint8Array(words.buffer);
}

export interface Streams {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  close(): Promise<void>;
}

export interface StreamOptions {
  readonly replicas?: number;
  /** The consumer's ack_wait in ms. */
  readonly ackWait?: number;
  readonly maxDeliver?: number;
  readonly maxAckPending?: number;
  /** Create the consumer (default) or leave it out. */
  readonly consumer?: boolean;
  /** Where the streams keep their messages: `memory` (default), or `file`, which outlives a server's restart. */
  readonly storage?: 'memory' | 'file';
}

const nanos = (ms: number) => ms * 1e6;

/** A connection of its own to the streams (made by {@link createStreams}), reconnecting for ever. */
export async function connectStreams(servers: string[]): Promise<Streams> {
  const nc = await connect({ servers, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  return { nc, js: jetstream(nc), jsm: await jetstreamManager(nc), close: () => nc.close() };
}

/** Connects, and creates the input, output and dead-letter streams and the durable pull consumer. */
export async function createStreams(servers: string[], options: StreamOptions = {}): Promise<Streams> {
  const streams = await connectStreams(servers);
  const { jsm } = streams;
  const replicas = options.replicas ?? 1;
  const storage = options.storage === 'file' ? StorageType.File : StorageType.Memory;
  for (const [name, subjects] of [[INPUT, ['frames.>']], [OUTPUT, ['results.>']], [DEAD, ['dead.>']]] as const)
    await jsm.streams.add({ name, subjects: [...subjects], num_replicas: replicas, storage, duplicate_window: nanos(120_000) });
  if (options.consumer !== false)
    await jsm.consumers.add(INPUT, {
      durable_name: DURABLE,
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(options.ackWait ?? 30_000),
      max_deliver: options.maxDeliver ?? 10,
      max_ack_pending: options.maxAckPending ?? 1000,
      num_replicas: replicas,
    });
  return streams;
}

/** Publishes inputs `from`..`to - 1`, a window of them at a time. */
export async function publishInputs(js: JetStreamClient, count: number, bytes: number, from = 0, window = 64): Promise<void> {
  for (let start = from; start < from + count; start += window) {
    const batch: Promise<unknown>[] = [];
    for (let i = start; i < Math.min(start + window, from + count); i++) batch.push(js.publish(`frames.${i}`, input(i, bytes), { msgID: `in-${i}` }));
    await Promise.all(batch);
  }
}

export interface Result {
  readonly source: string;
  readonly sequence: number;
  readonly data: Uint8Array;
  readonly checksum: string | undefined;
  /** When the server stored it, in ms since the epoch. */
  readonly stored: number;
}

/** How long {@link retrying} goes on: a loaded cluster that lost a node elected leaders in up to 20 s. */
const RETRY_MS = 60_000;

/** `request()`, tried again while it fails, for up to RETRY_MS: a cluster that lost a node answers late for a while. */
async function retrying<T>(request: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + RETRY_MS;
  for (let tries = 1; ; tries++) {
    try {
      return await request();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(500 * tries, 2000)));
    }
  }
}

/** Every message of `stream` now (read with an ordered consumer). */
export async function readAll(js: JetStreamClient, stream: string): Promise<Result[]> {
  const jsm = await js.jetstreamManager();
  const { state } = await retrying(() => jsm.streams.info(stream));
  const results: Result[] = [];
  if (state.messages === 0) return results;
  const consumer = await retrying(() => js.consumers.get(stream));
  const messages = await consumer.consume({ max_messages: 256 });
  for await (const m of messages) {
    const source = m.headers?.get('Nats-Msg-Id') ?? '';
    results.push({ source, sequence: m.seq, data: m.data, checksum: m.headers?.get('Checksum'), stored: m.info.timestampNanos / 1e6 });
    if (m.info.pending === 0) break;
  }
  await messages.close();
  return results;
}

/** Checks that every input 0..count-1 has exactly one result, inverted, with the input's checksum. */
export function verify(results: Result[], count: number, bytes: number): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  for (const r of results) seen.set(r.source, (seen.get(r.source) ?? 0) + 1);
  for (const [source, n] of seen) if (n !== 1) problems.push(`${source}: ${n} results`);
  const bySource = new Map(results.map((r) => [r.source, r]));
  for (let i = 0; i < count; i++) {
    const r = bySource.get(`${INPUT}:${i + 1}`);
    if (!r) {
      problems.push(`${INPUT}:${i + 1}: no result`);
      continue;
    }
    const sent = input(i, bytes);
    const words = new Uint32Array(new Uint8Array(r.data).buffer); // a copy: the data may be a Buffer's view of a pool
    const sentWords = new Uint32Array(sent.buffer);
    if (words.length !== sentWords.length || words.some((w, j) => w !== (~sentWords[j]! >>> 0))) problems.push(`${r.source}: wrong bytes`);
    if (r.checksum !== String(checksum(sent))) problems.push(`${r.source}: checksum ${r.checksum}, expected ${checksum(sent)}`);
  }
  return problems;
}

/** What a worker process reports over IPC. */
export interface WorkerReport {
  pulled?: number[];
  acked?: number[];
  /** Messages the worker dead-lettered (its dead letter stored first). */
  dead?: number[];
  /** Those of `dead` that the server's max-deliveries advisory named. */
  advised?: number[];
  /** A poison message it holds for ever from now: [sequence, delivery]. */
  holding?: [number, number];
  /** Messages acked on a later delivery, with when (ms since the epoch). */
  again?: [number, number][];
  counts?: Record<string, number>;
  done?: 'complete' | 'error';
  error?: string;
  reason?: string;
  maxInFlight?: number;
  started?: number;
}

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly pulled: Set<number>;
  readonly acked: Set<number>;
  readonly dead: Set<number>;
  readonly advised: Set<number>;
  /** When each message acked on a later delivery was acked. */
  readonly again: Map<number, number>;
  readonly reports: WorkerReport[];
  /** The last report with counters. */
  last?: WorkerReport;
  /** Resolves with the exit code or signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly started: Promise<void>;
  readonly stderr: string[];
}

const fixture = new URL('../jetstream/fixtures/worker.mjs', import.meta.url);

/** Starts a worker process (test/jetstream/fixtures/worker.mjs) with `settings`. */
export function startWorker(settings: Record<string, unknown>): WorkerProcess {
  const child = fork(fixture, [JSON.stringify({ stream: INPUT, consumer: DURABLE, ...settings })], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  const stderr: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (t: string) => stderr.push(t));
  let started!: () => void;
  const worker: WorkerProcess = {
    child,
    pulled: new Set(),
    acked: new Set(),
    dead: new Set(),
    advised: new Set(),
    again: new Map(),
    reports: [],
    stderr,
    started: new Promise((resolve) => (started = resolve)),
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
  };
  child.on('message', (report: WorkerReport) => {
    worker.reports.push(report);
    if (report.started) started();
    for (const s of report.pulled ?? []) worker.pulled.add(s);
    for (const s of report.acked ?? []) worker.acked.add(s);
    for (const s of report.dead ?? []) worker.dead.add(s);
    for (const s of report.advised ?? []) worker.advised.add(s);
    for (const [s, at] of report.again ?? []) worker.again.set(s, at);
    if (report.counts) worker.last = report;
  });
  return worker;
}

/** The consumer's state on the server. */
export async function consumerState(jsm: JetStreamManager) {
  const info = await retrying(() => jsm.consumers.info(INPUT, DURABLE));
  return { ackPending: info.num_ack_pending, pending: info.num_pending, redelivered: info.num_redelivered, waiting: info.num_waiting, ackFloor: info.ack_floor.stream_seq };
}

/** Polls `check` every `every` ms until it returns true, or throws after `timeout` ms. */
export async function until(check: () => boolean | Promise<boolean>, timeout: number, what: string, every = 50): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
