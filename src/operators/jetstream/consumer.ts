// What a worker takes from its consumer: the settings it goes by, the errors of a consumer that
// cannot serve it, and whether anything waits for it.
import type { Consumer, ConsumerInfo } from '@nats-io/jetstream';
import { JetStreamError, reasonOf } from './errors.js';

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
