// Per-worker counters of a JetStream worker, for progress bars and for checking a run.

/** The counters, as numbers (see {@link JetStreamCounts}). */
export interface JetStreamCountsSnapshot {
  /** Messages the worker got from the server (every delivery counts). */
  readonly pulled: number;
  /** Messages pulled and not settled yet. */
  readonly inFlight: number;
  /** Messages acked: their work done and their result accepted by the sink. */
  readonly acked: number;
  /** Messages nak'ed, to be delivered again. */
  readonly naked: number;
  /** Messages pulled that had been delivered before. */
  readonly redelivered: number;
  /** Dead letters the worker published (and the server stored: not duplicates of another worker's). */
  readonly deadLettered: number;
  /** Results the server dropped as duplicates. */
  readonly duplicates: number;
}

/** Counts a message that arrived (`again`: delivered before). */
export let countPull: (counts: JetStreamCounts, again: boolean) => void;

/** Counts a message settled `how`. */
export let countSettled: (counts: JetStreamCounts, how: 'acked' | 'naked' | 'deadLettered') => void;

/** Counts a dead letter stored for a message the worker did not hold. */
export let countDeadLetter: (counts: JetStreamCounts) => void;

/** Counts a result the server dropped as a duplicate. */
export let countDuplicate: (counts: JetStreamCounts) => void;

/**
 * What one worker has done, counted as it goes: give one to `fromJetStream` (`options.counts`)
 * and read it while the worker runs, or after. Several runs given the same counters add up.
 *
 * @example
 * const counts = new JetStreamCounts();
 * fromJetStream(consumer, pool, { counts, ... }).subscribe();
 * setInterval(() => console.log(counts.toJSON()), 1000);
 */
export class JetStreamCounts implements JetStreamCountsSnapshot {
  #pulled = 0;
  #inFlight = 0;
  #acked = 0;
  #naked = 0;
  #redelivered = 0;
  #deadLettered = 0;
  #duplicates = 0;

  /** Messages the worker got from the server (every delivery counts). */
  get pulled(): number {
    return this.#pulled;
  }
  /** Messages pulled and not settled yet (not acked, nak'ed or terminated): the server's `num_ack_pending` for this worker. */
  get inFlight(): number {
    return this.#inFlight;
  }
  /** Messages acked: their work done and their result accepted by the sink. */
  get acked(): number {
    return this.#acked;
  }
  /** Messages nak'ed, to be delivered again (a failed value, or one pulled while stopping). */
  get naked(): number {
    return this.#naked;
  }
  /** Messages pulled that had been delivered before (to this worker or another). */
  get redelivered(): number {
    return this.#redelivered;
  }
  /**
   * Dead letters the worker published and the server stored: messages it terminated (failed on
   * their last delivery, or larger than its frames), and messages the server said had used up
   * the consumer's `max_deliver` unsettled, which it read from the stream (the worker whose
   * publish of such a dead letter came first counts it; the others' were duplicates).
   */
  get deadLettered(): number {
    return this.#deadLettered;
  }
  /** Results the server dropped as duplicates (a redelivered input's second result). */
  get duplicates(): number {
    return this.#duplicates;
  }

  /**
   * The counters now, as a plain object.
   * @example
   * const { acked, deadLettered } = counts.toJSON();
   * console.log(JSON.stringify(counts)); // the same snapshot
   */
  toJSON(): JetStreamCountsSnapshot {
    const { pulled, inFlight, acked, naked, redelivered, deadLettered, duplicates } = this;
    return { pulled, inFlight, acked, naked, redelivered, deadLettered, duplicates };
  }

  #pull(again: boolean): void {
    this.#pulled++;
    this.#inFlight++;
    if (again) this.#redelivered++;
  }

  #settle(how: 'acked' | 'naked' | 'deadLettered'): void {
    this.#inFlight--;
    if (how === 'acked') this.#acked++;
    else if (how === 'naked') this.#naked++;
    else this.#deadLettered++;
  }

  #deadLetter(): void {
    this.#deadLettered++;
  }

  #duplicate(): void {
    this.#duplicates++;
  }
  static {
    countPull = (counts, again) => counts.#pull(again);
    countSettled = (counts, how) => counts.#settle(how);
    countDeadLetter = (counts) => counts.#deadLetter();
    countDuplicate = (counts) => counts.#duplicate();
  }
}
