// Pulls a durable consumer's messages in batches, within a bound on messages unsettled: what has
// arrived and is not acked, nak'ed or terminated yet, and what open requests may still bring.
import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';

/** What a {@link Puller} reports. */
export interface PullerHandlers {
  /** A message arrived; it counts as unsettled until {@link Puller.settled}. */
  readonly message: (message: JsMsg) => void;
  /** A request failed; returns whether to try again (after a pause), else the puller stops. */
  readonly failed: (error: unknown) => boolean;
  /** Whether the worker waits for a message now (then any free place is worth a request). */
  readonly waiting: () => boolean;
}

/** Milliseconds between tries after a failed request: doubling from the first to the last. */
const RETRY_MS = [50, 100, 200, 400, 800, 1600, 2000];

/**
 * Asks the consumer for messages with `fetch` requests, never for more than `bound` less the
 * messages unsettled and those open requests may still bring: the server's `num_ack_pending` for
 * this worker stays at or under `bound`. A request asks for every free place at once; another is
 * sent while one is open only when half the bound is free, so that a worker settling messages one
 * at a time still asks in batches.
 */
export class Puller {
  readonly #consumer: Consumer;
  readonly #bound: number;
  readonly #expires: number;
  readonly #handlers: PullerHandlers;
  readonly #open = new Set<ConsumerMessages>();
  #requested = 0;
  #unsettled = 0;
  #failures = 0;
  #retry: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(consumer: Consumer, bound: number, expires: number, handlers: PullerHandlers) {
    this.#consumer = consumer;
    this.#bound = bound;
    this.#expires = expires;
    this.#handlers = handlers;
  }

  /** Messages arrived and not settled. */
  get unsettled(): number {
    return this.#unsettled;
  }

  /** Requests sent and not ended yet. */
  get requests(): number {
    return this.#open.size;
  }

  /**
   * Sends a request when one is worth it: while the worker waits for a message, any free place
   * is, when no request is open; else only half the bound free is.
   */
  pull(): void {
    if (this.#stopped || this.#retry) return;
    const free = this.#bound - this.#unsettled - this.#requested;
    if (free <= 0) return;
    const batch = free >= Math.ceil(this.#bound / 2);
    if (batch || (this.#open.size === 0 && this.#handlers.waiting())) void this.#fetch(free);
  }

  /** A message that arrived is settled: its place is free. */
  settled(): void {
    this.#unsettled--;
    this.pull();
  }

  /** Sends no more requests and ends those open (what is on its way is redelivered by the server). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#retry);
    this.#retry = undefined;
    for (const messages of this.#open) void messages.close().catch(() => {});
  }

  async #fetch(count: number): Promise<void> {
    this.#requested += count;
    let arrived = 0;
    let messages: ConsumerMessages | undefined;
    let failure: unknown;
    try {
      messages = await this.#consumer.fetch({ max_messages: count, expires: this.#expires });
      this.#open.add(messages);
      if (this.#stopped) void messages.close().catch(() => {});
      for await (const message of messages) {
        arrived++;
        this.#requested--;
        this.#unsettled++;
        this.#failures = 0;
        this.#handlers.message(message);
      }
    } catch (error) {
      failure = error ?? new Error('A fetch request failed');
    } finally {
      this.#requested -= count - arrived;
      if (messages) this.#open.delete(messages);
    }
    if (this.#stopped) return;
    if (failure === undefined) return this.pull();
    if (!this.#handlers.failed(failure)) return this.stop();
    const pause = RETRY_MS[Math.min(this.#failures++, RETRY_MS.length - 1)];
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.pull();
    }, pause);
  }
}
