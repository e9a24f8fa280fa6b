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
  /** The last open request ended after {@link Puller.stop}. */
  readonly ended: () => void;
}

/** Milliseconds between tries after a failed request: doubling from the first to the last. */
const RETRY_MS = [50, 100, 200, 400, 800, 1600, 2000];

/** Heartbeats a request may miss before it is taken for dead. */
const MISSED = 2.5;

/** Milliseconds a request must have been quiet for before a stop ends it (its messages on their way have come). */
const QUIET = 200;

/** The server's heartbeat on a waiting request, from its `expires`: a fifth of it, 0.5 to 5 s. */
export function heartbeatOf(expires: number): number {
  return Math.min(5000, Math.max(500, Math.round(expires / 5)));
}

/** An open request: its messages once the client made it, and when the server last spoke on it. */
interface Request {
  messages: ConsumerMessages | undefined;
  last: number;
  dead: boolean;
}

/**
 * Asks the consumer for messages with `fetch` requests, never for more than `bound` less the
 * messages unsettled and those open requests may still bring: the server's `num_ack_pending` for
 * this worker stays at or under `bound`. A request asks for every free place at once; another is
 * sent while one is open only when half the bound is free, so that a worker settling messages one
 * at a time still asks in batches.
 *
 * A request the server has gone silent on (no message, no heartbeat for {@link MISSED}
 * heartbeats) is ended and sent again: one held by a node that died, or left waiting while the
 * connection moved to another node, would otherwise hold its places until the client noticed,
 * which it does late or not at all once it has reconnected.
 */
export class Puller {
  readonly #consumer: Consumer;
  readonly #bound: number;
  readonly #expires: number;
  readonly #heartbeat: number;
  readonly #handlers: PullerHandlers;
  readonly #open = new Set<Request>();
  readonly #watch: NodeJS.Timeout;
  #requested = 0;
  #unsettled = 0;
  #failures = 0;
  #retry: NodeJS.Timeout | undefined;
  #stopped = false;
  #ending: (() => void) | undefined;

  constructor(consumer: Consumer, bound: number, expires: number, handlers: PullerHandlers) {
    this.#consumer = consumer;
    this.#bound = bound;
    this.#expires = expires;
    this.#heartbeat = heartbeatOf(expires);
    this.#handlers = handlers;
    this.#watch = setInterval(() => this.#check(), this.#heartbeat / 2);
    this.#watch.unref();
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

  /**
   * Sends no more requests, and ends those open once the server has been quiet on them for a
   * moment: messages it had sent on them still come (for the worker to give back), instead of
   * being dropped by the client and held on the server until `ack_wait`.
   */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#retry);
    clearInterval(this.#watch);
    this.#retry = undefined;
    const end = () => {
      for (const request of this.#open) if (request.messages && performance.now() - request.last >= QUIET) void request.messages.close().catch(() => {});
    };
    const timer = setInterval(() => setImmediate(end), QUIET / 4); // after the socket has been read (see #check)
    this.#ending = () => clearInterval(timer);
    if (this.#open.size === 0) this.#ended();
  }

  #ended(): void {
    this.#ending?.();
    this.#ending = undefined;
    this.#handlers.ended();
  }

  async #fetch(count: number): Promise<void> {
    this.#requested += count;
    const request: Request = { messages: undefined, last: performance.now(), dead: false };
    this.#open.add(request); // open from now: a second pull in this turn sees it
    let arrived = 0;
    let failure: unknown;
    try {
      const messages = (request.messages = await this.#consumer.fetch({ max_messages: count, expires: this.#expires, idle_heartbeat: this.#heartbeat }));
      if (this.#stopped) void messages.close().catch(() => {}); // not sent yet: the iteration sends it
      void this.#listen(request, messages);
      for await (const message of messages) {
        request.last = performance.now();
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
      this.#open.delete(request);
    }
    if (this.#stopped) {
      if (this.#open.size === 0 && this.#ending) this.#ended();
      return;
    }
    if (failure === undefined && request.dead) failure = new Error(`The server sent nothing on a pull request for ${MISSED * this.#heartbeat} ms (heartbeats every ${this.#heartbeat} ms)`);
    if (failure === undefined) return this.pull();
    if (!this.#handlers.failed(failure)) return this.stop();
    const pause = RETRY_MS[Math.min(this.#failures++, RETRY_MS.length - 1)];
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.pull();
    }, pause);
  }

  /** Notes the server's heartbeats on a request, and its pulls sent again after a reconnect. */
  async #listen(request: Request, messages: ConsumerMessages): Promise<void> {
    try {
      for await (const notice of messages.status()) if (notice.type === 'heartbeat' || notice.type === 'next') request.last = performance.now();
    } catch {} // the request's end says why
  }

  /** Ends the requests the server has gone silent on. */
  #check(): void {
    const limit = MISSED * this.#heartbeat;
    for (const request of this.#open) {
      if (request.dead || !request.messages || performance.now() - request.last <= limit) continue;
      // Looked at again once the socket has been read: an event loop that was busy for longer
      // than the limit has the heartbeats waiting there, unread.
      setImmediate(() => {
        if (request.dead || performance.now() - request.last <= limit || !this.#open.has(request)) return;
        request.dead = true;
        void request.messages!.close().catch(() => {});
      });
    }
  }
}
