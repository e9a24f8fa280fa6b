// connectJetStream: a worker's connection, JetStream client and consumer, with errors that say
// what is missing (no server, no JetStream, no stream, no consumer) instead of the client's codes.
import type { Consumer, JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection, NodeConnectionOptions } from '@nats-io/transport-node';
import { checkOptions, checkSubject, typeError } from './args.js';
import { JetStreamError, reasonOf } from './errors.js';
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
  const servers = typeof options.servers === 'string' ? [options.servers] : options.servers;
  // Spread, so that a hole is seen (some() skips holes) and refused as no address.
  if (!Array.isArray(servers) || servers.length === 0 || [...servers].some((s) => typeof s !== 'string')) typeError('servers', 'a server address or a non-empty array of them', options.servers);
  const stream = checkSubject('stream', options.stream);
  const name = checkSubject('consumer', options.consumer);
  checkOptions('connection', options.connection);
  let connection: NatsConnection;
  try {
    connection = await nats.connect({ ...options.connection, servers: [...servers] });
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
