// How long a run of a known number of steps has left, for a progress bar: steady where steps
// finish in bursts (values on several lanes come back together), and quick to follow a real change
// of pace. The rate is measured over the latest half of the time since the first step finished
// (and at least its last 2 s), so the pipeline's filling is left out and a slow start falls out
// of it as the run goes on; the shown estimate counts down by the clock between updates, drawn
// towards the measured one.

/** How fast the shown estimate moves to the measured one: its time constant, in seconds. */
const SETTLE_S = 1.5;
/** The rate is measured over this share of the time since the first finished step… */
const WINDOW = 0.5;
/** …or over all of it, up to this many seconds. */
const MIN_WINDOW_S = 2;
/** Steps and seconds needed past the first finished step before saying anything. */
const MIN_STEPS = 6;
const MIN_SECONDS = 0.1;

/**
 * The time left of a run of `total` steps, from when its steps finished.
 *
 * @example
 * const left = new TimeLeft(500);
 * left.update(done); // at each finished step
 * bar.update({ left: formatTimeLeft(left.estimate()) }); // as often as the bar is drawn
 */
export class TimeLeft {
  readonly #total: number;
  /** Times (s) and counts of the updates, from the first one with a finished step on. */
  readonly #times: number[] = [];
  readonly #counts: number[] = [];
  #shown: { at: number; left: number } | undefined;

  /** @param total the run's steps. */
  constructor(total: number) {
    this.#total = total;
  }

  /** Records that `done` steps had finished at `now` (seconds on any clock that never goes back). */
  update(done: number, now = performance.now() / 1000): void {
    if (done <= 0) return;
    const last = this.#counts.length - 1;
    if (last >= 0 && now <= this.#times[last]!) {
      this.#counts[last] = Math.max(this.#counts[last]!, done);
      return;
    }
    this.#times.push(now);
    this.#counts.push(done);
  }

  /** Seconds left at `now`, or undefined until a few steps have finished. */
  estimate(now = performance.now() / 1000): number | undefined {
    const measured = this.#measured(now);
    if (measured === undefined) return undefined;
    const shown = this.#shown;
    let left = measured;
    if (shown !== undefined && now > shown.at) {
      const coasted = Math.max(0, shown.left - (now - shown.at)); // the clock ran on since
      // Early on, the measured rate is the best there is: follow it closely until it has settled.
      const settle = Math.min(SETTLE_S, (now - this.#times[0]!) / 4);
      left = measured + (coasted - measured) * Math.exp(-(now - shown.at) / settle);
    } else if (shown !== undefined) left = shown.left;
    this.#shown = { at: now, left };
    return left;
  }

  /** Steps left over the rate in the latest half of the time since the first finished step (at least its last 2 s). */
  #measured(now: number): number | undefined {
    const n = this.#counts.length;
    if (n === 0) return undefined;
    const done = this.#counts[n - 1]!;
    if (done >= this.#total) return 0;
    const first = this.#times[0]!;
    if (done - this.#counts[0]! < MIN_STEPS || now - first < MIN_SECONDS) return undefined;
    const elapsed = now - first;
    const from = now - Math.max(elapsed * WINDOW, Math.min(elapsed, MIN_WINDOW_S));
    const rate = (done - this.#countAt(from)) / (now - from);
    if (!(rate > 0)) return undefined;
    return (this.#total - done) / rate;
  }

  /** Steps finished at time `t`, interpolated between the updates around it. */
  #countAt(t: number): number {
    const times = this.#times;
    let lo = 0;
    let hi = times.length - 1;
    if (t <= times[0]!) return this.#counts[0]!;
    if (t >= times[hi]!) return this.#counts[hi]!;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (times[mid]! <= t) lo = mid;
      else hi = mid;
    }
    const f = (t - times[lo]!) / (times[hi]! - times[lo]!);
    return this.#counts[lo]! + f * (this.#counts[hi]! - this.#counts[lo]!);
  }
}

/** `…` (not known yet), `0 s`, `42 s`, `3 min 05 s`, `2 h 07 min`. */
export function formatTimeLeft(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '…';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}
