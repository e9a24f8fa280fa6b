// The scheduler: each stream's own queue of work that may not reach the driver yet. The device
// never waits for the host (DESIGN.md, rule 5): a host step is a notification, and the device work
// enqueued after it waits here, in order, until the step settles. A stream with nothing queued
// hands each command straight to the driver.

/** Lets a paused queue go on; calling it again, or after another pause began, does nothing. */
export type Resume = () => void;

/** What a command returns to hold back the commands behind it: it calls `resume` when they may go. */
export type Pause = (resume: Resume) => void;

/**
 * One stream-ordered submission to the driver; it may pause the queue behind it. `dropped`, where
 * a command has one, settles what waits for it when its lane breaks (its device's sticky error)
 * before the command ran: a completion point rejects, an `onDone` callback hears the error.
 */
export type Command = (() => Pause | void) & { dropped?: (error: unknown) => void };

/** `command`, with what settles its waiters should its lane break before it runs. */
export function settling(command: () => Pause | void, dropped: (error: unknown) => void): Command {
  return Object.assign(command, { dropped });
}

/** Queued commands at most before the spent front of the array is given back. */
const COMPACT_AFTER = 1024;

/**
 * A stream's queue. `run` submits at once when nothing is queued or paused (the errors
 * of such a command reach its caller); otherwise the command waits its turn, and its errors go to
 * `onFailure`, since its caller has long returned.
 */
export class StreamQueue {
  // A growing array read from #head: linear in the number of commands, however deep the queue.
  #items: (Command | undefined)[] = [];
  #head = 0;
  #paused = false;
  #draining = false;
  #pauses = 0;
  #flushed: (() => void)[] = [];
  /** Set once the lane broke: nothing queued will run, and nothing waits to be flushed. */
  #dropped = false;
  readonly #onFailure: (error: unknown) => void;
  readonly #onQueued: () => void;
  readonly #onEmptied: () => void;

  /**
   * @param onFailure hears a queued command's failure (its caller has returned long since).
   * @param onQueued hears that a command had to wait in the queue.
   * @param onEmptied hears that nothing waits in the queue any more (its commands ran or were dropped).
   */
  constructor(onFailure: (error: unknown) => void, onQueued: () => void = () => {}, onEmptied: () => void = () => {}) {
    this.#onFailure = onFailure;
    this.#onQueued = onQueued;
    this.#onEmptied = onEmptied;
  }

  /** True when a command given now goes straight to the driver. */
  get direct(): boolean {
    return !this.#paused && this.#head === this.#items.length;
  }

  /** Commands waiting in the queue. */
  get length(): number {
    return this.#items.length - this.#head;
  }

  /** Submits `command` now if the stream is direct, else queues it behind the others. */
  run(command: Command): void {
    if (!this.direct) {
      this.#items.push(command);
      this.#onQueued();
      return;
    }
    const pause = command();
    if (pause) this.pause(pause);
  }

  /** Holds back everything given from now on until `pause` resumes the queue. */
  pause(pause: Pause): void {
    const token = ++this.#pauses;
    this.#paused = true;
    pause(() => {
      if (token !== this.#pauses || !this.#paused) return;
      this.#paused = false;
      if (!this.#draining) this.#drain();
    });
  }

  /** Resolves once nothing waits in this queue and no pause holds it. */
  flushed(): Promise<void> {
    if (this.direct || this.#dropped) return Promise.resolve();
    return new Promise((resolve) => this.#flushed.push(resolve));
  }

  /**
   * Drops every queued command (the lane broke): each one's `dropped` settles what waits for it,
   * in a microtask (never inside the call that recorded the fault), and `flushed()` resolves. The
   * pause that holds the queue is left to its command (a step finishes on its own); what is given
   * from now on still queues behind it, and will not run either.
   */
  drop(error: unknown): void {
    const items = this.#items;
    const head = this.#head;
    this.#items = [];
    this.#head = 0;
    this.#dropped = true;
    if (items.length > head) this.#onEmptied();
    const settle: ((error: unknown) => void)[] = [];
    for (let i = head; i < items.length; i++) {
      const dropped = items[i]?.dropped;
      if (dropped) settle.push(dropped);
    }
    for (const resolve of this.#flushed.splice(0)) resolve();
    if (settle.length === 0) return;
    queueMicrotask(() => {
      for (const dropped of settle) {
        try {
          dropped(error);
        } catch (thrown) {
          this.#onFailure(thrown);
        }
      }
    });
  }

  #drain(): void {
    this.#draining = true;
    try {
      while (!this.#paused && this.#head < this.#items.length) {
        const command = this.#items[this.#head]!;
        this.#items[this.#head++] = undefined;
        try {
          const pause = command();
          if (pause) this.pause(pause);
        } catch (error) {
          this.#onFailure(error);
        }
      }
    } finally {
      this.#draining = false;
    }
    if (this.#head === this.#items.length) {
      if (this.#head > 0) this.#onEmptied();
      this.#items = [];
      this.#head = 0;
    } else if (this.#head > COMPACT_AFTER && this.#head * 2 > this.#items.length) {
      this.#items.splice(0, this.#head);
      this.#head = 0;
    }
    if (this.direct && this.#flushed.length > 0) for (const resolve of this.#flushed.splice(0)) resolve();
  }
}
