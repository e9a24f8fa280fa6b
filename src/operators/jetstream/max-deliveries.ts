// The server's word that a message used up the consumer's `max_deliver` without being settled (its
// last holder died, stopped or lost the server before acking it): the server delivers it no more,
// and counts it neither pending nor unacked, but it is still in the stream. The workers that hear
// the advisory read it there by sequence and dead-letter it, under one message ID between them.
import type { JetStreamManager, StoredMsg } from '@nats-io/jetstream';
import type { Msg, Subscription } from '@nats-io/transport-node';
import { errorLine, publishDeadLetter, type DeadLetterOptions } from './dead-letter.js';
import { JetStreamError } from './errors.js';
import type { JetStreamOutcome } from './settle.js';

/** What a {@link MaxDeliveries} reports. */
export interface MaxDeliveriesHandlers {
  /** This worker stored the message's dead letter (another worker's publish of it was not first). */
  readonly deadLettered: (outcome: JetStreamOutcome) => void;
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
    if (first) this.#handlers.deadLettered({ outcome: 'dead-letter', stream, sequence, subject: subject ?? '', deliveryCount: deliveries, error });
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
