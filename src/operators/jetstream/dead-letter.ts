// Dead letters: a message that will not be delivered again, published to the dead-letter subject
// with where it came from and why, under a message ID of its stream and sequence, so that the
// second publish of the same dead letter (by another worker, or after a crash) is a duplicate.
import type { JetStreamClient } from '@nats-io/jetstream';
import type { MsgHdrs, NatsConnection } from '@nats-io/transport-node';
import { JetStreamError } from './errors.js';
import { nats } from './peer.js';

/** Where messages go after their last failed delivery. */
export interface DeadLetterOptions {
  /** The JetStream client to publish with. */
  readonly jetstream: JetStreamClient;
  /** The subject; a stream must take it (else dead-lettering fails, and the message stays unacked). */
  readonly subject: string;
  /**
   * The connection the worker hears the server's max-deliveries advisories on
   * (`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.<stream>.<consumer>`): a message that used up
   * the consumer's `max_deliver` without being settled (its last holder died, stopped or lost
   * the server) is dead-lettered from the stream by the workers that hear it.
   * @default `drain`, the worker's connection
   */
  readonly connection?: Pick<NatsConnection, 'subscribe'>;
}

/** Headers of a dead letter, beside `Nats-Msg-Id` and the message's own headers: where it came from and why it failed. */
export const DEAD_LETTER_HEADERS = {
  /** The error the message failed with, as one line (`PipelineError: …`, `JetStreamError: …`). */
  error: 'Rxcuda-Error',
  /** The stream the message is stored in. */
  stream: 'Rxcuda-Stream',
  /** Its sequence number in that stream (where it still is, unless the stream's limits removed it). */
  sequence: 'Rxcuda-Sequence',
  /** The subject it was published on. */
  subject: 'Rxcuda-Subject',
  /** How many times it was delivered. */
  deliveries: 'Rxcuda-Deliveries',
} as const;

/** A message to dead-letter, and why. */
export interface DeadLetter {
  readonly stream: string;
  readonly sequence: number;
  /** Its subject; undefined when the message is no longer in the stream. */
  readonly subject: string | undefined;
  readonly headers: MsgHdrs | undefined;
  readonly data: Uint8Array;
  readonly deliveries: number;
  readonly error: unknown;
}

/** Tries of a dead letter's publish while the server does not answer, or has no leader for the stream (the client backs off between them). */
const TRIES = 3;

/** An error as one header line. */
export function errorLine(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    text = 'an error that cannot be printed';
  }
  return text.replace(/[\r\n]+/g, ' ').slice(0, 2000);
}

/** The message's own headers, less those the server acts on (`Nats-Msg-Id`, `Nats-Expected-…`), with rxcuda's. */
function headersOf(letter: DeadLetter): MsgHdrs {
  const headers = nats.headers();
  for (const key of letter.headers?.keys() ?? []) if (!/^nats-/i.test(key)) for (const value of letter.headers!.values(key)) headers.append(key, value);
  headers.set(DEAD_LETTER_HEADERS.error, errorLine(letter.error));
  headers.set(DEAD_LETTER_HEADERS.stream, letter.stream);
  headers.set(DEAD_LETTER_HEADERS.sequence, String(letter.sequence));
  if (letter.subject !== undefined) headers.set(DEAD_LETTER_HEADERS.subject, letter.subject);
  headers.set(DEAD_LETTER_HEADERS.deliveries, String(letter.deliveries));
  return headers;
}

/** Whether a publish failed because no stream takes the subject (no responders), rather than for a server that did not answer. */
export function noStreamTakes(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return (error as Error | null)?.name === 'JetStreamNotEnabled' || (cause as { isNoResponders?: () => boolean } | undefined)?.isNoResponders?.() === true;
}

/**
 * Publishes a dead letter; resolves with whether the server stored it (false: it had one with
 * this ID already, within the dead-letter stream's duplicate window). Rejects with a
 * JetStreamError, reason `dead-letter-failed`, whose `cause` is the client's error.
 */
export async function publishDeadLetter(options: DeadLetterOptions, letter: DeadLetter): Promise<boolean> {
  const { jetstream, subject } = options;
  const { stream, sequence, deliveries } = letter;
  try {
    const ack = await jetstream.publish(subject, letter.data, { msgID: `${stream}:${sequence}:dead-letter`, headers: headersOf(letter), retries: TRIES });
    return !ack.duplicate;
  } catch (cause) {
    throw new JetStreamError(
      'dead-letter-failed',
      `Could not publish ${stream} #${sequence} to the dead-letter subject \`${subject}\` after its ${deliveries} deliveries (${errorLine(cause)}): ` +
        (noStreamTakes(cause) ? `add a stream that takes \`${subject}\`` : 'the server did not answer') +
        '; the message is left unacked',
      cause,
    );
  }
}
