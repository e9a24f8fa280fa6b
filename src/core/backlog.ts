// Bookkeeping of the device work queued behind a stream's unfinished host steps.
//
// While a held host step has not run, the device sits at its gate and the driver's queue for the
// stream only fills. The queue is finite (on an H200 about a thousand commands; an enqueue past
// that blocks until the device drains it), and the step can only run once the main thread is
// free: an enqueue that blocked there would never return. So work behind unfinished steps is
// counted, and past a bound it is refused with an error instead of blocking. Weights are in units
// of an argument-less launch, of which an H200 queued 1021 behind a stalled stream; a held step
// weighs far more (an enqueue blocked after 50 to 75 of them) and a launch grows with its
// arguments, which travel in the queue too.

/** Commands (in driver queue entries, counted high) allowed behind a stream's unfinished steps. */
export const BACKLOG_LIMIT = 512;

/** What one held host step counts as: at most 32 of them wait behind an unfinished one. */
export const HOST_STEP_UNITS = 16;

/**
 * What a launch with `argumentBytes` of packed arguments counts as: counted high, since only
 * argument-less launches were measured (a unit per 8 bytes of arguments).
 */
export function launchUnits(argumentBytes: number): number {
  return 1 + Math.ceil(argumentBytes / 8);
}

/** @internal */
export class Backlog {
  #units = 0;
  readonly #marks: number[] = [];
  readonly #limit: number;

  /** @param limit what the backend's queue takes behind a stall (Infinity: no bound). */
  constructor(limit = BACKLOG_LIMIT) {
    this.#limit = limit;
  }

  /** Counts `units` of work about to be enqueued; throws, enqueuing nothing, past the limit. */
  admit(units: number): void {
    const oldest = this.#marks[0];
    if (oldest !== undefined && this.#units + units - oldest > this.#limit)
      throw new RangeError(
        `Expected at most ${this.#limit} commands queued behind the unfinished host steps of this stream, ` +
          `got ${this.#units + units - oldest}: the device waits for a step that runs on the main thread, and ` +
          'more work would fill the driver queue and block that thread. Await the step (or ' +
          'stream.synchronized()) before enqueuing more.',
      );
    this.#units += units;
  }

  /** Takes back units admitted for work that was not enqueued after all. */
  withdraw(units: number): void {
    this.#units -= units;
  }

  /** Everything ever admitted, in units: unchanged between two moments means nothing was enqueued. */
  get total(): number {
    return this.#units;
  }

  /** A held step was enqueued: what follows waits for it. */
  stepEnqueued(): void {
    this.#marks.push(this.#units);
  }

  /** The oldest held step settled (steps of a stream settle in order). */
  stepReleased(): void {
    this.#marks.shift();
  }
}
