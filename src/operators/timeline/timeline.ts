// A record of when each value's stages ran, per lane: device stages timed by events, host steps
// by the clock, exported as a Chrome trace (chrome://tracing, Perfetto) or as an HTML page.
import type { Device, Event, Stream } from '../../core/index.js';
import { typeError } from '../../core/base/errors.js';
import { checkOptions } from '../../core/base/options.js';
import { timelineHtml, type TimelineHtmlOptions } from './timeline-html.js';
import { layoutRows } from './timeline-rows.js';
import { writeTextFile } from './write-file.js';
import type { Span, StageSummary } from './span.js';

export type { Span, StageSummary } from './span.js';

interface DeviceSpan {
  lane: number;
  index: number;
  stage: string;
  start: Event;
  end: Event;
  bytes: number;
  /** When the start event was recorded, in host time from the timeline's start. */
  called: number;
}

/** A device span whose events completed: its start in device time, from its device's base event. */
interface TimedSpan extends Omit<Span, 'start' | 'kind'> {
  readonly base: Base;
  readonly fromBase: number;
  readonly requested: number;
}

/**
 * A device's clock as the timeline reads it: an event that device times are counted from, and
 * the host time it is placed at. An event never runs before it was recorded, so each start event
 * says the base came at least this late: `at` is the latest of these, the earliest host time at
 * which every event ran after its record (a record that found its stream idle ran at once).
 */
interface Base {
  readonly event: Event;
  at: number;
}

/**
 * Times the work `enqueue` puts on `stream` as one span of `timeline`, which moves `bytes`.
 */
export let timeDeviceSpan: (timeline: Timeline, stream: Stream, lane: number, index: number, stage: string, enqueue: () => void, bytes?: number) => void;

/**
 * Records in `timeline` host work that ran from `start` (performance.now()) until now, moving
 * `bytes`, asked for at `requested` (a host step is asked for when it is queued, and starts when
 * its stream gets there).
 */
export let timeHostSpan: (timeline: Timeline, lane: number, index: number, stage: string, start: number, bytes?: number, requested?: number) => void;

/**
 * Collects spans of a pipeline: pass it to {@link onStreams} (`{ timeline }`); each operator then
 * records its device work between two timed events, and host steps their run time. Read it as
 * spans, a summary per stage, a Chrome trace or an HTML page.
 * Recording costs two events per stage and value: use it to look, not in production.
 *
 * Device times are placed on the host's clock by their events, as early as their records allow
 * (no event runs before it was recorded): a device span is drawn early by at most the time a
 * record takes to reach an idle stream (microseconds on a GPU; on the host device, the wake-up
 * of the stream's thread, longer on a loaded machine).
 *
 * @example
 * const timeline = new Timeline();
 * await lastValueFrom(frames$.pipe(onStreams(device, { lanes: 2, timeline }), upload((f) => f), …));
 * console.log(timeline.summary());
 * await timeline.writeHtml('timeline.html');
 */
export class Timeline {
  readonly #origin = performance.now();
  readonly #bases = new Map<Device, Base>();
  readonly #pending: DeviceSpan[] = [];
  readonly #timed: TimedSpan[] = [];
  readonly #hostSpans: { readonly span: Span; readonly requested: number }[] = [];

  #device(stream: Stream, lane: number, index: number, stage: string, enqueue: () => void, bytes = 0): void {
    const called = performance.now() - this.#origin;
    if (!this.#bases.has(stream.device)) this.#bases.set(stream.device, { event: stream.record({ timing: true }), at: called });
    const start = stream.record({ timing: true });
    enqueue();
    this.#pending.push({ lane, index, stage, start, end: stream.record({ timing: true }), bytes, called });
  }

  #host(lane: number, index: number, stage: string, start: number, bytes = 0, requested = start): void {
    const now = performance.now();
    this.#hostSpans.push({ span: { lane, index, stage, kind: 'host', start: start - this.#origin, duration: now - start, bytes }, requested: requested - this.#origin });
  }

  /**
   * Every span whose events have completed (call after the pipeline finished for all), by start.
   * @example
   * for (const span of timeline.spans()) console.log(`${span.stage} on lane ${span.lane}: ${span.duration.toFixed(3)} ms`);
   */
  spans(): Span[] {
    return this.#finished().map((f) => f.span);
  }

  /** The finished spans by start, each with when it was asked for (the pipeline's order). */
  #finished(): { readonly span: Span; readonly requested: number }[] {
    const still: DeviceSpan[] = [];
    for (const span of this.#pending.splice(0)) {
      if (!span.end.query()) {
        still.push(span);
        continue;
      }
      const base = this.#bases.get(span.start.device)!;
      const fromBase = span.start.elapsedSince(base.event);
      base.at = Math.max(base.at, span.called - fromBase);
      this.#timed.push({ lane: span.lane, index: span.index, stage: span.stage, base, fromBase, duration: span.end.elapsedSince(span.start), bytes: span.bytes, requested: span.called });
      span.start.close();
      span.end.close();
    }
    this.#pending.push(...still);
    // Device spans are placed with what is known of their device's clock now, which only gets better.
    const device = this.#timed.map(({ base, fromBase, requested, ...span }) => ({ span: { ...span, kind: 'device' as const, start: base.at + fromBase }, requested }));
    return [...this.#hostSpans, ...device].sort((a, b) => a.span.start - b.span.start);
  }

  /**
   * Total and mean milliseconds per stage, keyed `device:invert`, `host:host`, and for copies the
   * bytes moved and the rate while copying. The operators name copy stages by the road the data
   * took (`upload input [pinned]`, `stage input [workers]`, `download output [lent]`, …).
   * @example
   * console.table(timeline.summary()); // one row per stage: total and mean ms, bytes, rates
   */
  summary(): Record<string, StageSummary> {
    const out: Record<string, StageSummary> = {};
    for (const span of this.spans()) {
      const s = (out[`${span.kind}:${span.stage}`] ??= { kind: span.kind, stage: span.stage, count: 0, total: 0, mean: 0, bytes: 0, bytesPerSecond: 0 });
      s.count++;
      s.total += span.duration;
      s.mean = s.total / s.count;
      s.bytes += span.bytes;
      s.bytesPerSecond = s.total > 0 ? (s.bytes * 1000) / s.total : 0;
    }
    return out;
  }

  /**
   * The spans as Chrome trace events (`ph: 'X'`, microseconds): process 1, one thread per row,
   * after the metadata (`ph: 'M'`) events that name the process and the threads. Each lane has a
   * row of device work and one of host steps (lane `n`: threads `2n + 1` and `2n + 2`), and more
   * where spans of one kind overlap on the lane (the staging copies of values in flight at once,
   * say), so that no two spans of one thread overlap: those take the thread ids after the lanes'
   * first rows, are named `lane n host steps (2)` and so on, and are sorted beside their lane.
   *
   * @example
   * await writeFile('trace.json', JSON.stringify(timeline.toChromeTrace()));
   * @param options.names - whether to put in the `M` events that name the process and each
   *   lane's threads (default `true`; `false`: the span events alone)
   * @throws TypeError for an unknown option or a `names` that is not a boolean.
   * @see https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU (Trace Event Format)
   */
  toChromeTrace(options: { readonly names?: boolean } = {}): ChromeTrace {
    checkOptions('options', options, ['names']);
    const { names: named = true } = options;
    if (typeof named !== 'boolean') typeError('names', 'a boolean', named);
    const spans = this.spans();
    const { rows, rowOf } = layoutRows(spans);
    const lanes = rows.reduce((n, r) => Math.max(n, r.lane + 1), 0);
    let extra = 2 * lanes;
    const tids = rows.map((r) => (r.row === 0 ? 2 * r.lane + (r.kind === 'device' ? 1 : 2) : ++extra));
    const events: TraceEvent[] = spans.map((s, i) => ({
      name: `${s.stage} #${s.index}`,
      cat: s.kind,
      ph: 'X',
      ts: s.start * 1000,
      dur: s.duration * 1000,
      pid: PID,
      tid: tids[rowOf[i]!]!,
      args: s.bytes > 0 ? { value: s.index, lane: s.lane, bytes: s.bytes, GBps: Number((s.bytes / s.duration / 1e6).toFixed(2)) } : { value: s.index, lane: s.lane },
    }));
    if (!named) return { traceEvents: events, displayTimeUnit: 'ms' };
    const names: TraceEvent[] = [{ name: 'process_name', ph: 'M', pid: PID, tid: 0, args: { name: 'rxcuda pipeline' } }];
    rows.forEach((row, i) => {
      names.push({ name: 'thread_name', ph: 'M', pid: PID, tid: tids[i]!, args: { name: row.label } });
      names.push({ name: 'thread_sort_index', ph: 'M', pid: PID, tid: tids[i]!, args: { sort_index: i } });
    });
    return { traceEvents: [...names, ...events], displayTimeUnit: 'ms' };
  }

  /**
   * Writes the Chrome trace, with the events that name its process and threads, to `path`.
   *
   * @example
   * await timeline.write('trace.json'); // then open it in ui.perfetto.dev
   * @throws rejects with a {@link FileWriteError} (its `cause` the file system's error) when the
   *   file cannot be written, and a TypeError when `path` is not a string.
   */
  async write(path: string): Promise<void> {
    await writeTextFile('the Chrome trace', path, JSON.stringify(this.toChromeTrace()));
  }

  /**
   * The timeline as one self-contained HTML page, which loads nothing from anywhere: each lane's
   * rows (device work, host steps) with a bar per span, on a time axis that zooms; a table of
   * the stages with their throughput while they ran (values and bytes per second); and the copy
   * roads the values took (their stages in order, the copies named by road, with which values
   * took each). Clicking a bar
   * follows its value across the rows. Call it once the pipeline has finished, as
   * {@link Timeline.spans}. Every span is drawn: a page of some ten thousand spans opens at
   * once, one of a million takes a while.
   *
   * @example
   * const html = timeline.toHtml({ title: 'frames on 3 lanes' });
   * @param options the page's `title` and a `description` line under it.
   */
  toHtml(options: TimelineHtmlOptions = {}): string {
    const finished = this.#finished();
    return timelineHtml(finished.map((f) => f.span), finished.map((f) => f.requested), this.summary(), options);
  }

  /**
   * Writes {@link Timeline.toHtml}'s page to `path`.
   *
   * @example
   * await timeline.writeHtml('timeline.html'); // open it in any browser, offline
   * @throws rejects with a {@link FileWriteError} (its `cause` the file system's error) when the
   *   file cannot be written, and a TypeError when `path` is not a string.
   */
  async writeHtml(path: string, options: TimelineHtmlOptions = {}): Promise<void> {
    await writeTextFile('the HTML timeline', path, this.toHtml(options));
  }
  static {
    timeDeviceSpan = (timeline, stream, lane, index, stage, enqueue, bytes) => timeline.#device(stream, lane, index, stage, enqueue, bytes);
  }
  static {
    timeHostSpan = (timeline, lane, index, stage, start, bytes, requested) => timeline.#host(lane, index, stage, start, bytes, requested);
  }
}

/** One event of a Chrome trace (Trace Event Format): times in microseconds, numeric ids. */
export interface TraceEvent {
  /**
   * The event's name: `stage #index` for a span; for an `M` event, the metadata it sets
   * (`process_name`, `thread_name`, `thread_sort_index`).
   */
  readonly name: string;
  /** The phase: `X` a complete event (a span, with `ts` and `dur`), `M` a metadata event. */
  readonly ph: 'X' | 'M';
  /** Process id (always 1). */
  readonly pid: number;
  /**
   * Thread id: for lane `n`, `2n + 1` for device work and `2n + 2` for host steps, and ids after
   * those for the rows that overlapping spans need (see {@link Timeline.toChromeTrace}); 0 for
   * the event that names the process.
   */
  readonly tid: number;
  /** Category: the span's kind, `device` or `host`; absent on `M` events. */
  readonly cat?: string;
  /** Start time, in microseconds from the timeline's start; absent on `M` events. */
  readonly ts?: number;
  /** Duration, in microseconds; absent on `M` events. */
  readonly dur?: number;
  /**
   * Extra fields shown with the event: for a span, the value's index (`value`) and `lane`, and
   * for a copy `bytes` and `GBps` (the rate in GB/s, 10^9 bytes per second); for an `M` event,
   * the `name` or `sort_index` it sets.
   */
  readonly args?: Readonly<Record<string, string | number>>;
}

/** A Chrome trace in the JSON object format, as chrome://tracing and Perfetto open it. */
export interface ChromeTrace {
  /** The spans, as complete ('X') events, and the lanes' names, as metadata ('M') events. */
  readonly traceEvents: TraceEvent[];
  /** The unit the viewer shows times in (the events' own times are microseconds). */
  readonly displayTimeUnit: 'ms' | 'ns';
}

const PID = 1;
