// How a worker settles each message it pulled: acked once its work is done and its result
// accepted, nak'ed with a delay when it failed, terminated and dead-lettered after its last
// delivery, and kept alive with in-progress acks while its work takes long.
import type { JsMsg } from '@nats-io/jetstream';
import type { JetStreamCounts } from './counts.js';
import { noStreamTakes, publishDeadLetter, type DeadLetterOptions } from './dead-letter.js';
import { MAX_TIMER_MS } from './options.js';
import { countPull, countSettled } from './counts.js';

/** What became of a message, as a worker's Observable emits it. */
export interface JetStreamOutcome {
  /**
   * `acked`: done, result accepted; `nak`: failed or returned, to be delivered again;
   * `dead-letter`: published to the dead-letter subject, never delivered again (it failed on its
   * last delivery and was terminated, it is larger than the worker's frames, or the server said
   * that it used up the consumer's `max_deliver` unsettled and this worker dead-lettered it).
   */
  readonly outcome: 'acked' | 'nak' | 'dead-letter';
  /** The stream the message is stored in. */
  readonly stream: string;
  /** Its sequence number in that stream: the one number that names a message across deliveries and workers. */
  readonly sequence: number;
  /** The subject it was published on (empty for a dead letter of a message no longer in the stream). */
  readonly subject: string;
  /** Its deliveries so far, this one included. */
  readonly deliveryCount: number;
  /** Why it failed (a `nak` for a failure, or a `dead-letter`); undefined for a message returned unprocessed. */
  readonly error?: unknown;
}

/** A pulled message while the worker holds it. */
export interface Held {
  readonly message: JsMsg;
  /** When it last told the server it is being worked on (or arrived), by performance.now(). */
  since: number;
  settled: boolean;
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
    this.#timer = setInterval(() => this.#progress(), Math.min(MAX_TIMER_MS, Math.max(10, options.progressEvery / 4)));
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
    countPull(this.#counts, message.info.deliveryCount > 1);
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
   * subject and terminated. Resolves once settled; rejects with a JetStreamError when no stream
   * takes the dead-letter subject (the message is nak'ed then, not terminated). A dead letter the
   * server did not take in time is nak'ed too, and the worker goes on: on its last delivery, the
   * server's max-deliveries advisory has it dead-lettered from the stream (see MaxDeliveries).
   */
  async fail(held: Held, error: unknown): Promise<void> {
    if (held.settled) return;
    const { message } = held;
    if (message.info.deliveryCount < this.#maxDeliver) {
      this.#take(held);
      message.nak(this.#nakDelay);
      return this.#done(held, 'naked', 'nak', error);
    }
    return this.deadLetter(held, error);
  }

  /**
   * Publishes it to the dead-letter subject with `error`, whatever its deliveries, and
   * terminates it (a message this worker cannot take, or one that failed on its last delivery).
   */
  async deadLetter(held: Held, error: unknown): Promise<void> {
    if (held.settled) return;
    const { message } = held;
    const { stream, streamSequence: sequence, deliveryCount: deliveries } = message.info;
    try {
      await publishDeadLetter(this.#deadLetter, { stream, sequence, subject: message.subject, headers: message.headers, data: message.data, deliveries, error });
    } catch (failure) {
      if (this.#take(held)) {
        message.nak(this.#nakDelay);
        this.#done(held, 'naked', 'nak', error);
      }
      if (noStreamTakes((failure as Error).cause)) throw failure;
      return;
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
    countSettled(this.#counts, count);
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
