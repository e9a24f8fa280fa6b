// A record of when each value's stages ran, per lane: device stages timed by events, host steps
// by the clock, exported as a Chrome trace (chrome://tracing, Perfetto).
import { writeFile } from 'node:fs/promises';
import { typeError } from '../../core/base/errors.js';
import { checkOptions } from '../../core/base/options.js';
import type { Event } from '../../core/device/event.js';
import type { Stream } from '../../core/device/stream.js';

interface DeviceSpan {
  lane: number;
  index: number;
  stage: string;
  start: Event;
  end: Event;
  bytes: number;
}

/** One finished span: milliseconds from the timeline's start. */
export interface Span {
  /** The lane the stage ran on: its position in the pool, from 0. */
  readonly lane: number;
  /** The value's position in the source, from 0. */
  readonly index: number;
  /**
   * The stage's name: the kernel's name for a launch, `host` for a host step, and for a copy the
   * road the data took (e.g. `upload input [pinned]`).
   */
  readonly stage: string;
  /** `device`: work on the stream, timed by events; `host`: work on the CPU, timed by the clock. */
  readonly kind: 'device' | 'host';
  /** When the stage began, in milliseconds from the timeline's start. */
  readonly start: number;
  /** How long the stage ran, in milliseconds. */
  readonly duration: number;
  /** Bytes the stage moved (a copy), else 0. */
  readonly bytes: number;
}

/**
 * Collects spans of a pipeline: pass it to {@link onStreams} (`{ timeline }`); each operator then
 * records its device work between two timed events, and host steps their run time.
 * Recording costs two events per stage and value: use it to look, not in production.
 */
export class Timeline {
  readonly #origin = performance.now();
  readonly #bases = new Map<Stream, { event: Event; at: number }>();
  readonly #pending: DeviceSpan[] = [];
  readonly #spans: Span[] = [];

  /** @internal Times the work `enqueue` puts on `stream` as one span, which moves `bytes`. */
  device(stream: Stream, lane: number, index: number, stage: string, enqueue: () => void, bytes = 0): void {
    if (!this.#bases.has(stream)) this.#bases.set(stream, { event: stream.record({ timing: true }), at: performance.now() - this.#origin });
    const start = stream.record({ timing: true });
    enqueue();
    this.#pending.push({ lane, index, stage, start, end: stream.record({ timing: true }), bytes });
  }

  /** @internal Records host work that ran from `start` (performance.now()) until now, moving `bytes`. */
  host(lane: number, index: number, stage: string, start: number, bytes = 0): void {
    const now = performance.now();
    this.#spans.push({ lane, index, stage, kind: 'host', start: start - this.#origin, duration: now - start, bytes });
  }

  /** Every span whose events have completed (call after the pipeline finished for all). */
  spans(): Span[] {
    const still: DeviceSpan[] = [];
    for (const span of this.#pending.splice(0)) {
      if (!span.end.query()) {
        still.push(span);
        continue;
      }
      // Device times are relative to an event recorded when the lane was first used, placed at
      // the host time of that moment: lanes line up to within the launch latency.
      const base = this.#bases.get(span.start.recordedStream()!)!;
      const start = base.at + span.start.elapsedSince(base.event);
      this.#spans.push({ lane: span.lane, index: span.index, stage: span.stage, kind: 'device', start, duration: span.end.elapsedSince(span.start), bytes: span.bytes });
      span.start.close();
      span.end.close();
    }
    this.#pending.push(...still);
    return [...this.#spans].sort((a, b) => a.start - b.start);
  }

  /**
   * Total and mean milliseconds per stage, keyed `device:invert`, `host:host`, and for copies the
   * bytes moved and the rate while copying. The operators name copy stages by the road the data
   * took (`upload input [pinned]`, `stage input [workers]`, `download output [lent]`, …).
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
   * The spans as Chrome trace events (`ph: 'X'`, microseconds): process 1, one thread per lane
   * and kind (lane `n`: thread `2n + 1` for device work, `2n + 2` for host steps), after the
   * metadata (`ph: 'M'`) events that name the process and the threads.
   *
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
    const events: TraceEvent[] = spans.map((s) => ({
      name: `${s.stage} #${s.index}`,
      cat: s.kind,
      ph: 'X',
      ts: s.start * 1000,
      dur: s.duration * 1000,
      pid: PID,
      tid: threadId(s.lane, s.kind),
      args: s.bytes > 0 ? { value: s.index, lane: s.lane, bytes: s.bytes, GBps: Number((s.bytes / s.duration / 1e6).toFixed(2)) } : { value: s.index, lane: s.lane },
    }));
    if (!named) return { traceEvents: events, displayTimeUnit: 'ms' };
    return { traceEvents: [...names(spans), ...events], displayTimeUnit: 'ms' };
  }

  /** Writes the Chrome trace, with the events that name its process and threads, to `path`. */
  async write(path: string): Promise<void> {
    await writeFile(path, JSON.stringify(this.toChromeTrace()));
  }
}

/** What {@link Timeline.summary} says of one stage: its spans' count, total and mean (ms). */
export interface StageSummary {
  /** Whether the stage is device work or host work, as {@link Span.kind}. */
  readonly kind: 'device' | 'host';
  /** The stage's name, as {@link Span.stage}. */
  readonly stage: string;
  /** Number of spans of the stage (one per value it ran for). */
  count: number;
  /** The spans' durations added up, in milliseconds. */
  total: number;
  /** The spans' mean duration, in milliseconds: `total` over `count`. */
  mean: number;
  /** Bytes the stage's spans moved (0 for stages that copy nothing). */
  bytes: number;
  /** Bytes per second while the stage ran: `bytes` over `total`. */
  bytesPerSecond: number;
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
   * Thread id: for lane `n`, `2n + 1` for device work and `2n + 2` for host steps; 0 for the
   * event that names the process.
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

function threadId(lane: number, kind: 'device' | 'host'): number {
  return 2 * lane + (kind === 'device' ? 1 : 2);
}

/** The `M` events naming the process and every thread that the spans use, in lane order. */
function names(spans: readonly Span[]): TraceEvent[] {
  const events: TraceEvent[] = [{ name: 'process_name', ph: 'M', pid: PID, tid: 0, args: { name: 'rxcuda pipeline' } }];
  const threads = new Map<number, string>();
  for (const s of spans) threads.set(threadId(s.lane, s.kind), `lane ${s.lane} ${s.kind === 'device' ? 'device work' : 'host steps'}`);
  for (const [tid, name] of [...threads].sort(([a], [b]) => a - b)) {
    events.push({ name: 'thread_name', ph: 'M', pid: PID, tid, args: { name } });
    events.push({ name: 'thread_sort_index', ph: 'M', pid: PID, tid, args: { sort_index: tid } });
  }
  return events;
}
