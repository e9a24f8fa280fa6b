// Dead letters: a message that will not be delivered again, published to the dead-letter subject
// with where it came from and why, under a message ID of its stream and sequence, so that the
// second publish of the same dead letter (by another worker, or after a crash) is a duplicate.
// Among them, those the server names in its max-deliveries advisory: a message that used up the
// consumer's `max_deliver` without being settled (its last holder died, stopped or lost the server
// before acking it), which the server delivers no more and counts neither pending nor unacked,
// but which is still in the stream: the workers that hear the advisory read it there by sequence
// and dead-letter it, under one message ID between them.
import type { ConsumerInfo, JetStreamClient, JetStreamManager, StoredMsg } from '@nats-io/jetstream';
import type { Msg, MsgHdrs, NatsConnection, Subscription } from '@nats-io/transport-node';
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

/** What a {@link MaxDeliveries} reports. */
export interface MaxDeliveriesHandlers {
  /** This worker stored the message's dead letter (another worker's publish of it was not first). */
  readonly deadLettered: (letter: DeadLetter) => void;
  /** The dead letter could not be read or published. */
  readonly failed: (error: JetStreamError) => void;
  /** A dead letter in progress ended, either way. */
  readonly ended: () => void;
}

/** Tries of reading the message from the stream, with the pause before each next one. */
const READ_PAUSES_MS = [200, 800, 2000];

/** The advisory's subject for a consumer. */
export function maxDeliveriesSubject(stream: string, consumer: string): string {
  return `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${stream}.${consumer}`;
}

/** Listens to a consumer's max-deliveries advisories, and dead-letters each message they name. */
export class MaxDeliveries {
  readonly #subscription: Subscription;
  readonly #stream: string;
  readonly #deadLetter: DeadLetterOptions;
  readonly #handlers: MaxDeliveriesHandlers;
  #manager: Promise<JetStreamManager> | undefined;
  #busy = 0;

  constructor(stream: string, consumer: string, deadLetter: DeadLetterOptions & { connection: NonNullable<DeadLetterOptions['connection']> }, handlers: MaxDeliveriesHandlers) {
    this.#stream = stream;
    this.#deadLetter = deadLetter;
    this.#handlers = handlers;
    this.#subscription = deadLetter.connection.subscribe(maxDeliveriesSubject(stream, consumer), { callback: (error, message) => void (error === null && this.#heard(message)) });
  }

  /** A listener for the consumer of `info`, or none where it has no `max_deliver` (the server never stops delivering a message then). */
  static listen(info: ConsumerInfo, deadLetter: ConstructorParameters<typeof MaxDeliveries>[2], handlers: MaxDeliveriesHandlers): MaxDeliveries | undefined {
    const max = info.config.max_deliver;
    return max !== undefined && max > 0 ? new MaxDeliveries(info.stream_name, info.name, deadLetter, handlers) : undefined;
  }

  /** Dead letters in progress. */
  get busy(): number {
    return this.#busy;
  }

  /** Listens no more; the dead letters in progress go on. */
  close(): void {
    try {
      this.#subscription.unsubscribe();
    } catch {} // a closed connection has no subscriptions left
  }

  #heard(message: Msg): void {
    let advisory: { stream_seq?: unknown; deliveries?: unknown };
    try {
      advisory = message.json();
    } catch {
      return; // not an advisory of the server's
    }
    const { stream_seq: sequence, deliveries } = advisory;
    if (!Number.isSafeInteger(sequence) || !Number.isSafeInteger(deliveries)) return;
    this.#busy++;
    void this.#deadLetterOf(sequence as number, deliveries as number).then(
      () => (this.#busy--, this.#handlers.ended()),
      (error: JetStreamError) => (this.#busy--, this.#handlers.failed(error), this.#handlers.ended()),
    );
  }

  async #deadLetterOf(sequence: number, deliveries: number): Promise<void> {
    const stream = this.#stream;
    const stored = await this.#read(sequence);
    const gone = stored === null ? '; it is no longer in the stream (its limits removed it), so the dead letter carries no payload' : '';
    const error = new JetStreamError(
      'max-deliveries',
      `Message ${stream} #${sequence} was delivered ${deliveries} times (the consumer's max_deliver) and never settled: the worker that held it last died, stopped or lost the server before acking it${gone}`,
    );
    const subject = stored?.subject;
    const letter = { stream, sequence, subject, headers: stored?.header, data: stored?.data ?? new Uint8Array(0), deliveries, error };
    let first: boolean;
    try {
      first = await publishDeadLetter(this.#deadLetter, letter);
    } catch (failure) {
      throw this.#lost(sequence, failure);
    }
    if (first) this.#handlers.deadLettered(letter);
  }

  /** The message, read from the stream by sequence; null when the stream has it no more. */
  async #read(sequence: number): Promise<StoredMsg | null> {
    for (let tries = 0; ; tries++) {
      try {
        this.#manager ??= this.#deadLetter.jetstream.jetstreamManager(false);
        return await (await this.#manager).streams.getMessage(this.#stream, { seq: sequence });
      } catch (error) {
        this.#manager = undefined;
        if (tries >= READ_PAUSES_MS.length) throw this.#lost(sequence, error);
        await new Promise((resolve) => setTimeout(resolve, READ_PAUSES_MS[tries]));
      }
    }
  }

  #lost(sequence: number, cause: unknown): JetStreamError {
    return new JetStreamError(
      'dead-letter-failed',
      `Could not dead-letter ${this.#stream} #${sequence}, which used up the consumer's max_deliver unsettled (${errorLine(cause)}): ` +
        `it is still in the stream at that sequence, and is not delivered again; republish it from there`,
      cause,
    );
  }
}
