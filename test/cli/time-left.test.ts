// The demo's time-left estimate against the truth, on progress series of finished frames: one
// recorded from a real demo run and synthetic ones (bursts from several lanes, jitter, a slow
// start, a change of pace). After the first 10 % of a run the estimate must stay within 30 % of the
// time really left (or within half a second, the bar's rounding, near the end), where the pace
// of the rest of the run is that of what ran before: no estimate foresees a change of pace.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatTimeLeft, TimeLeft } from '../../src/cli/time-left.js';

/** Times (s from the run's start) at which each frame finished, in order. */
type Series = number[];

/** A seeded generator of numbers in [0, 1): the same series on every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Frames finishing in bursts of `lanes`, a burst every `period(t)` seconds with ±`jitter` of it,
 * after `fill` seconds of filling the pipeline.
 */
function bursts(frames: number, lanes: number, fill: number, jitter: number, period: (t: number) => number, seed = 1): Series {
  const next = random(seed);
  const times: Series = [];
  let t = fill;
  while (times.length < frames) {
    for (let k = 0; k < lanes && times.length < frames; k++) times.push(t);
    t += period(t) * (1 + jitter * (2 * next() - 1));
  }
  return times;
}

/** The worst misses of the estimate after the first 10 % of the run, looked at every 100 ms and at each frame. */
function misses(series: Series): string[] {
  const end = series.at(-1)!;
  const left = new TimeLeft(series.length);
  const looks = [...series.map((t, i) => ({ t, done: i + 1 })), ...Array.from({ length: Math.floor(end / 0.1) }, (_, k) => ({ t: (k + 1) * 0.1, done: 0 }))];
  looks.sort((a, b) => a.t - b.t || b.done - a.done);
  const found: string[] = [];
  for (const look of looks) {
    if (look.done > 0) left.update(look.done, look.t);
    const estimate = left.estimate(look.t);
    if (look.t < 0.1 * end) continue;
    const truth = end - look.t;
    if (estimate === undefined) found.push(`at ${look.t.toFixed(2)} s: no estimate, ${truth.toFixed(2)} s left`);
    else if (Math.abs(estimate - truth) > Math.max(0.3 * truth, 0.5)) found.push(`at ${look.t.toFixed(2)} s: ${estimate.toFixed(2)} s, ${truth.toFixed(2)} s left`);
  }
  return found.slice(0, 5);
}

/**
 * The most the estimate moved, beyond the clock's own 0.1 s, between two looks 0.1 s apart after
 * the first 10 % of the run.
 */
function jumps(series: Series): number {
  const end = series.at(-1)!;
  const left = new TimeLeft(series.length);
  let frame = 0;
  let previous: number | undefined;
  let worst = 0;
  for (let k = 1; k * 0.1 <= end; k++) {
    const t = k * 0.1;
    while (frame < series.length && series[frame]! <= t) left.update(++frame, series[frame - 1]!);
    const estimate = left.estimate(t);
    if (t >= 0.1 * end && estimate === undefined) throw new Error(`no estimate at ${t.toFixed(1)} s`);
    if (estimate !== undefined && previous !== undefined && t >= 0.1 * end) worst = Math.max(worst, Math.abs(estimate - (previous - 0.1)));
    previous = estimate;
  }
  return worst;
}

/**
 * A recorded run at a steady pace: its gaps between finished frames (bursts from the lanes
 * included) in blocks of 30 frames, the blocks shuffled, so that the other programs' load, which
 * sped the recorded runs up and slowed them down, is spread over the whole run.
 */
function steady(series: Series, seed = 5): Series {
  const next = random(seed);
  const gaps = series.map((t, i) => t - (series[i - 1] ?? 0)).slice(1);
  const blocks: number[][] = [];
  for (let i = 0; i < gaps.length; i += 30) blocks.push(gaps.slice(i, i + 30));
  for (let i = blocks.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [blocks[i], blocks[j]] = [blocks[j]!, blocks[i]!];
  }
  const times = [series[0]!];
  for (const gap of blocks.flat()) times.push(times.at(-1)! + gap);
  return times;
}

const recorded = (JSON.parse(readFileSync(new URL('fixtures/demo-progress.json', import.meta.url), 'utf8')) as { runs: Series[] }).runs;

describe('the demo\'s time-left estimate', () => {
  it('stays within 30 % of the truth on the frames of recorded demo runs, at a steady pace', () => {
    for (const run of recorded) expect(misses(steady(run))).toEqual([]);
  });

  it('changes by the clock between looks, not by jumps, on recorded demo runs as they came', () => {
    for (const run of recorded) expect(jumps(run)).toBeLessThan(0.2); // beyond the 0.1 s between two looks
  });

  it('stays within 30 % of the truth when frames finish in bursts from three lanes', () => {
    expect(misses(bursts(3000, 3, 0.4, 0.6, () => 0.01))).toEqual([]);
  });

  it('stays within 30 % of the truth when bursts come at very uneven times', () => {
    expect(misses(bursts(2000, 6, 0.2, 0.95, () => 0.05, 7))).toEqual([]);
  });

  it('changes by the clock between looks, not by jumps, when frames finish in bursts', () => {
    expect(jumps(bursts(3000, 3, 0.3, 0.5, () => 0.01, 11))).toBeLessThan(0.2);
  });

  it('says nothing before frames have finished, and 0 s once all have', () => {
    const left = new TimeLeft(10);
    expect(left.estimate(1)).toBeUndefined();
    left.update(10, 2);
    expect(left.estimate(2)).toBe(0);
  });
});

describe('formatTimeLeft', () => {
  it('writes seconds, minutes and hours for people, and … for no estimate', () => {
    expect([undefined, 0.4, 42.4, 185, 7620].map(formatTimeLeft)).toEqual(['…', '0 s', '42 s', '3 min 05 s', '2 h 07 min']);
  });
});
