// A record of when each value's stages ran, per lane: device stages timed by events, host steps
// by the clock, exported as a Chrome trace (chrome://tracing, Perfetto).
import { writeFile } from 'node:fs/promises';
import type { Event } from '../core/event.js';
import type { Stream } from '../core/stream.js';

interface DeviceSpan {
  lane: number;
  index: number;
  stage: string;
  start: Event;
  end: Event;
}

/** One finished span: milliseconds from the timeline's start. */
export interface Span {
  readonly lane: number;
  readonly index: number;
  readonly stage: string;
  readonly kind: 'device' | 'host';
  readonly start: number;
  readonly duration: number;
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

  /** @internal Times the work `enqueue` puts on `stream` as one span. */
  device(stream: Stream, lane: number, index: number, stage: string, enqueue: () => void): void {
    if (!this.#bases.has(stream)) this.#bases.set(stream, { event: stream.record({ timing: true }), at: performance.now() - this.#origin });
    const start = stream.record({ timing: true });
    enqueue();
    this.#pending.push({ lane, index, stage, start, end: stream.record({ timing: true }) });
  }

  /** @internal Records a host step that ran from `start` (performance.now()) until now. */
  host(lane: number, index: number, stage: string, start: number): void {
    const now = performance.now();
    this.#spans.push({ lane, index, stage, kind: 'host', start: start - this.#origin, duration: now - start });
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
      this.#spans.push({ lane: span.lane, index: span.index, stage: span.stage, kind: 'device', start, duration: span.end.elapsedSince(span.start) });
      span.start.close();
      span.end.close();
    }
    this.#pending.push(...still);
    return [...this.#spans].sort((a, b) => a.start - b.start);
  }

  /** Total and mean milliseconds per stage. */
  summary(): Record<string, { count: number; total: number; mean: number }> {
    const out: Record<string, { count: number; total: number; mean: number }> = {};
    for (const span of this.spans()) {
      const s = (out[`${span.kind}:${span.stage}`] ??= { count: 0, total: 0, mean: 0 });
      s.count++;
      s.total += span.duration;
      s.mean = s.total / s.count;
    }
    return out;
  }

  /** The spans as a Chrome trace: one row per lane and kind. */
  toChromeTrace(): { traceEvents: object[] } {
    return {
      traceEvents: this.spans().map((s) => ({
        name: `${s.stage} #${s.index}`,
        cat: s.kind,
        ph: 'X',
        ts: s.start * 1000,
        dur: s.duration * 1000,
        pid: 1,
        tid: `lane ${s.lane} ${s.kind}`,
      })),
    };
  }

  /** Writes the Chrome trace to `path`. */
  async write(path: string): Promise<void> {
    await writeFile(path, JSON.stringify(this.toChromeTrace()));
  }
}
