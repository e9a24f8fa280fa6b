// connectJetStream: a worker's connection, JetStream client and consumer, with errors that say
// what is missing (no server, no JetStream, no stream, no consumer) instead of the client's codes;
// and what a worker takes from its consumer: the settings it goes by, the errors of a consumer
// that cannot serve it, and whether anything waits for it.
import type { Consumer, ConsumerInfo, JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection, NodeConnectionOptions } from '@nats-io/transport-node';
import { checkOptions, checkSubject, typeError } from './args.js';
import { JetStreamError, reasonOf } from './errors.js';
import { elementsOf, isArray } from '../../core/base/errors.js';
import { nats } from './peer.js';

/** Options for {@link connectJetStream}. */
export interface ConnectJetStreamOptions {
  /** The servers to try, e.g. `nats://127.0.0.1:4222` or the nodes of a cluster. */
  readonly servers: string | readonly string[];
  /** The stream the consumer reads. */
  readonly stream: string;
  /** The durable pull consumer's name. */
  readonly consumer: string;
  /** Further connection options (name, reconnect policy, credentials…). */
  readonly connection?: Omit<NodeConnectionOptions, 'servers'>;
}

/** What {@link connectJetStream} gives: the connection (drain it at the end), the client and the consumer. */
export interface JetStreamWorkerConnection {
  /** The NATS connection: give it to the worker as `drain` (drained once it stops; it also hears the server's max-deliveries advisories). */
  readonly connection: NatsConnection;
  /** The JetStream client on it: publish results ({@link toJetStream}) and dead letters with it. */
  readonly jetstream: JetStreamClient;
  /** The durable pull consumer, checked to exist: the worker's source ({@link fromJetStream}). */
  readonly consumer: Consumer;
}

/**
 * Connects to NATS and gets a durable pull consumer for a worker. The connection reconnects for
 * as long as NATS's defaults allow (to any node of a cluster given in `servers`).
 *
 * @example
 * const { connection, jetstream, consumer } = await connectJetStream({ servers: 'nats://127.0.0.1:4222', stream: 'FRAMES', consumer: 'gpu' });
 *
 * @param options the servers, the stream and the consumer.
 * @returns the connection, the JetStream client and the consumer.
 * @throws TypeError or RangeError for bad options; JetStreamError (rejected) with reason
 * `server-unreachable`, `no-jetstream`, `stream-not-found` or `consumer-not-found`, its `cause`
 * the client's error; nothing stays open then.
 */
export async function connectJetStream(options: ConnectJetStreamOptions): Promise<JetStreamWorkerConnection> {
  checkOptions('options', options, ['connection', 'consumer', 'servers', 'stream']);
  if (options === undefined) typeError('options', 'an options object with `servers`, `stream` and `consumer`', options);
  // Read once, each address too (a getter may answer differently each time), a hole as undefined
  // (some() skips holes): what is checked is what the client is given.
  const given = options.servers;
  const servers = typeof given === 'string' ? [given] : isArray(given) ? elementsOf(given) : undefined;
  if (servers === undefined || servers.length === 0 || servers.some((s) => typeof s !== 'string')) typeError('servers', 'a server address or a non-empty array of them', servers ?? given);
  const stream = checkSubject('stream', options.stream);
  const name = checkSubject('consumer', options.consumer);
  checkOptions('connection', options.connection);
  let connection: NatsConnection;
  try {
    connection = await nats.connect({ ...options.connection, servers: servers as string[] });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    throw new JetStreamError('server-unreachable', `No NATS server answered at ${servers.join(', ')} (${text}): start one (\`nats-server -js\`), or give the worker the right \`servers\`; nothing was pulled`, error);
  }
  try {
    const jetstream = nats.jetstream(connection);
    const consumer = await jetstream.consumers.get(stream, name);
    return { connection, jetstream, consumer };
  } catch (error) {
    await connection.close().catch(() => {});
    const text = error instanceof Error ? error.message : String(error);
    const reason = reasonOf(error);
    if (reason === 'stream-not-found') throw new JetStreamError(reason, `Stream \`${stream}\` does not exist on ${servers.join(', ')} (${text}): create it before starting workers; nothing was pulled`, error);
    if (reason === 'consumer-not-found')
      throw new JetStreamError(reason, `Consumer \`${name}\` of stream \`${stream}\` does not exist (${text}): create it as a durable pull consumer with explicit acks; nothing was pulled`, error);
    throw new JetStreamError('no-jetstream', `JetStream did not answer on ${servers.join(', ')} (${text}): start the server with JetStream on (\`nats-server -js\`); nothing was pulled`, error);
  }
}

/** The consumer's settings a worker goes by, or the JetStreamError that says why it cannot. */
export function workerSettings(info: ConsumerInfo, maxDeliver: number | undefined): { ackWait: number; maxDeliver: number } | JetStreamError {
  const { config, stream_name: stream, name } = info;
  if (config.deliver_subject)
    return new JetStreamError('not-a-pull-consumer', `Consumer \`${name}\` of stream \`${stream}\` is a push consumer: a worker needs a durable pull consumer (no deliver_subject)`);
  if (config.ack_policy !== 'explicit')
    return new JetStreamError('ack-policy', `Consumer \`${name}\` of stream \`${stream}\` has ack_policy \`${config.ack_policy}\`: a worker needs \`explicit\` acks`);
  const serverMax = config.max_deliver !== undefined && config.max_deliver > 0 ? config.max_deliver : Infinity;
  return { ackWait: (config.ack_wait ?? 30e9) / 1e6, maxDeliver: Math.min(maxDeliver ?? (serverMax === Infinity ? 5 : serverMax), serverMax) };
}

/** The JetStreamError for a failed request of the consumer, or undefined when it may be tried again. */
export function requestFailure(error: unknown, consumer: string): JetStreamError | undefined {
  const reason = reasonOf(error);
  const text = error instanceof Error ? error.message : String(error);
  if (reason === 'stream-not-found') return new JetStreamError(reason, `The stream of consumer \`${consumer}\` does not exist (${text}): create it, or give the worker another`, error);
  if (reason === 'consumer-not-found') return new JetStreamError(reason, `Consumer \`${consumer}\` does not exist (${text}): create it as a durable pull consumer with explicit acks`, error);
  if (reason === 'connection-closed') return new JetStreamError(reason, `The connection to the NATS server closed (${text}): the messages held are redelivered after ack_wait`, error);
  return undefined;
}

/** Whether the server says that no message waits for the consumer; false when it does not answer. */
export function nothingWaiting(consumer: Consumer): Promise<boolean> {
  return consumer.info().then(
    (info) => info.num_pending === 0,
    () => false,
  );
}

/**
 * Calls `stop` once nothing has arrived for `idle` ms (see `arrived`), the worker is not `busy`,
 * and the server says that nothing waits for the consumer: a quiet spell that is an outage (a
 * node died, the cluster elects leaders) is not the end of the work, and the idle clock starts again.
 */
export function watchIdle(consumer: Consumer, idle: number, worker: { busy: () => boolean; stop: () => void }): { arrived(): void; close(): void } {
  let last = performance.now();
  let asking = false;
  const timer = setInterval(() => {
    if (asking || worker.busy() || performance.now() - last < idle) return;
    asking = true;
    const since = last;
    void nothingWaiting(consumer).then((none) => {
      asking = false;
      if (last !== since) return;
      if (none && !worker.busy()) worker.stop();
      else last = performance.now();
    });
  }, Math.min(250, Math.max(10, idle / 4)));
  return { arrived: () => void (last = performance.now()), close: () => clearInterval(timer) };
}
