// How a worker settles each message it pulled: acked once its work is done and its result
// accepted, nak'ed with a delay when it failed, terminated and dead-lettered after its last
// delivery, and kept alive with in-progress acks while its work takes long.
import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { JetStreamCounts } from './counts.js';
import { JetStreamError } from './errors.js';
import { nats } from './peer.js';

/** What became of a message, as a worker's Observable emits it. */
export interface JetStreamOutcome {
  /** `acked`: done, result accepted; `nak`: failed or returned, to be delivered again; `dead-letter`: failed on its last delivery, terminated and published to the dead-letter subject. */
  readonly outcome: 'acked' | 'nak' | 'dead-letter';
  readonly stream: string;
  readonly sequence: number;
  readonly subject: string;
  /** Its deliveries so far, this one included. */
  readonly deliveryCount: number;
  /** Why it failed (a `nak` for a failure, or a `dead-letter`); undefined for a message returned unprocessed. */
  readonly error?: unknown;
}

/** Where messages go after their last failed delivery. */
export interface DeadLetterOptions {
  /** The JetStream client to publish with. */
  readonly jetstream: JetStreamClient;
  /** The subject; a stream must take it (else dead-lettering fails, and the message stays unacked). */
  readonly subject: string;
}

/** A pulled message while the worker holds it. */
export interface Held {
  readonly message: JsMsg;
  /** When it last told the server it is being worked on (or arrived), by performance.now(). */
  since: number;
  settled: boolean;
}

/** Headers of a dead letter, beside `Nats-Msg-Id`: where it came from and why it failed. */
export const DEAD_LETTER_HEADERS = {
  error: 'Rxcuda-Error',
  stream: 'Rxcuda-Stream',
  sequence: 'Rxcuda-Sequence',
  subject: 'Rxcuda-Subject',
  deliveries: 'Rxcuda-Deliveries',
} as const;

/** An error as one header line. */
function errorLine(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    text = 'an error that cannot be printed';
  }
  return text.replace(/[\r\n]+/g, ' ').slice(0, 2000);
}

/** Settles held messages and keeps the slow ones alive. */
export class Settler {
  readonly #held = new Set<Held>();
  readonly #counts: JetStreamCounts;
  readonly #emit: (outcome: JetStreamOutcome) => void;
  readonly #nakDelay: number;
  readonly #maxDeliver: number;
  readonly #deadLetter: DeadLetterOptions;
  readonly #progressEvery: number;
  readonly #timer: NodeJS.Timeout;

  constructor(
    options: { nakDelay: number; maxDeliver: number; deadLetter: DeadLetterOptions; progressEvery: number },
    counts: JetStreamCounts,
    emit: (outcome: JetStreamOutcome) => void,
  ) {
    this.#counts = counts;
    this.#emit = emit;
    this.#nakDelay = options.nakDelay;
    this.#maxDeliver = options.maxDeliver;
    this.#deadLetter = options.deadLetter;
    this.#progressEvery = options.progressEvery;
    this.#timer = setInterval(() => this.#progress(), Math.max(10, options.progressEvery / 4));
    this.#timer.unref();
  }

  /** Messages held now. */
  get held(): number {
    return this.#held.size;
  }

  /** Holds a message that arrived. */
  hold(message: JsMsg): Held {
    const held: Held = { message, since: performance.now(), settled: false };
    this.#held.add(held);
    this.#counts.pull(message.info.deliveryCount > 1);
    return held;
  }

  /**
   * Its work is done and its result accepted. Resolves once the server has taken the ack (or
   * could not say so): until then the message counts in the server's `num_ack_pending`, which
   * handles acks apart from pull requests, so its place is not free for another pull before.
   */
  async ack(held: Held): Promise<void> {
    if (held.settled) return;
    held.settled = true;
    try {
      await held.message.ackAck();
    } catch {} // a closed connection or no answer in time: the stop that follows says so
    this.#held.delete(held);
    this.#done(held, 'acked', 'acked');
  }

  /** Gives it back unprocessed (the worker stops): delivered again at once, to any worker. */
  giveBack(held: Held): void {
    if (!this.#take(held)) return;
    held.message.nak();
    this.#done(held, 'naked', 'nak');
  }

  /**
   * It failed: nak'ed with the delay, or on its last delivery published to the dead-letter
   * subject and terminated. Resolves once settled; rejects with a JetStreamError when the dead
   * letter could not be published (the message is nak'ed then, not terminated).
   */
  async fail(held: Held, error: unknown): Promise<void> {
    if (held.settled) return;
    const { message } = held;
    if (message.info.deliveryCount < this.#maxDeliver) {
      this.#take(held);
      message.nak(this.#nakDelay);
      return this.#done(held, 'naked', 'nak', error);
    }
    const { jetstream, subject } = this.#deadLetter;
    const { stream, streamSequence } = message.info;
    const headers = nats.headers();
    headers.set(DEAD_LETTER_HEADERS.error, errorLine(error));
    headers.set(DEAD_LETTER_HEADERS.stream, stream);
    headers.set(DEAD_LETTER_HEADERS.sequence, String(streamSequence));
    headers.set(DEAD_LETTER_HEADERS.subject, message.subject);
    headers.set(DEAD_LETTER_HEADERS.deliveries, String(message.info.deliveryCount));
    try {
      await jetstream.publish(subject, message.data, { msgID: `${stream}:${streamSequence}:dead-letter`, headers });
    } catch (cause) {
      if (this.#take(held)) {
        message.nak(this.#nakDelay);
        this.#done(held, 'naked', 'nak', error);
      }
      throw new JetStreamError(
        'dead-letter-failed',
        `Could not publish ${stream} #${streamSequence} to the dead-letter subject \`${subject}\` after its ${message.info.deliveryCount} deliveries failed (${errorLine(cause)}): add a stream that takes \`${subject}\`; the message is left unacked`,
        cause,
      );
    }
    if (!this.#take(held)) return;
    message.term();
    this.#done(held, 'deadLettered', 'dead-letter', error);
  }

  /** Stops the in-progress acks. */
  close(): void {
    clearInterval(this.#timer);
  }

  #take(held: Held): boolean {
    if (held.settled) return false;
    held.settled = true;
    this.#held.delete(held);
    return true;
  }

  #done(held: Held, count: 'acked' | 'naked' | 'deadLettered', outcome: JetStreamOutcome['outcome'], error?: unknown): void {
    this.#counts.settle(count);
    const { message } = held;
    const settled = { outcome, stream: message.info.stream, sequence: message.info.streamSequence, subject: message.subject, deliveryCount: message.info.deliveryCount };
    this.#emit(error === undefined ? settled : { ...settled, error });
  }

  /** Tells the server that messages held for `progressEvery` are still being worked on. */
  #progress(): void {
    const now = performance.now();
    for (const held of this.#held)
      if (now - held.since >= this.#progressEvery) {
        held.since = now;
        try {
          held.message.working();
        } catch {} // a closed connection: the stop that follows says so
      }
  }
}
