// The rows a timeline is drawn in: each lane has a row of device work and a row of host steps,
// and more of either kind where spans of that kind overlap on the lane (the staging copies of
// several values at once, say), so that no two spans of one row overlap. Trace viewers draw spans
// of one row as a stack: overlapping spans that do not nest would be drawn wrongly.
import type { Span } from './span.js';

/** One row of a drawn timeline: a lane's device work or host steps, the `row`-th of its kind. */
export interface TimelineRow {
  readonly lane: number;
  readonly kind: 'device' | 'host';
  /** 0 for the lane's first row of its kind, 1 for the next one that overlapping spans needed, … */
  readonly row: number;
  /** `lane 0 device work`, `lane 0 host steps`, `lane 0 host steps (2)`, … */
  readonly label: string;
}

/** The rows of a set of spans, and the position (in `rows`) of each span's row. */
export interface RowLayout {
  /** Every row, in display order: by lane, device work first, then by `row`. */
  readonly rows: readonly TimelineRow[];
  /** For `spans[i]`, the position of its row in `rows`. */
  readonly rowOf: readonly number[];
}

/**
 * Spans closer than this (in milliseconds) do not overlap: a device span's end and the next one's
 * start come from two events and may differ by a rounding in either direction.
 */
export const OVERLAP_TOLERANCE_MS = 1e-6;

/**
 * Places every span in the first row of its lane and kind where it overlaps no span placed
 * before it (spans taken by start time), opening a row where there is none.
 */
export function layoutRows(spans: readonly Span[]): RowLayout {
  const order = spans.map((_, i) => i).sort((a, b) => spans[a]!.start - spans[b]!.start);
  const ends = new Map<string, number[]>(); // lane/kind → end of the last span of each of its rows
  const rowIn = new Array<number>(spans.length);
  for (const i of order) {
    const span = spans[i]!;
    const key = `${span.lane}/${span.kind}`;
    const rowEnds = ends.get(key) ?? ends.set(key, []).get(key)!;
    let row = rowEnds.findIndex((end) => end <= span.start + OVERLAP_TOLERANCE_MS);
    if (row === -1) row = rowEnds.push(0) - 1;
    rowEnds[row] = span.start + span.duration;
    rowIn[i] = row;
  }
  const rows: TimelineRow[] = [];
  for (const [key, rowEnds] of ends) {
    const [lane, kind] = key.split('/') as [string, 'device' | 'host'];
    for (let row = 0; row < rowEnds.length; row++) rows.push({ lane: Number(lane), kind, row, label: rowLabel(Number(lane), kind, row) });
  }
  rows.sort((a, b) => a.lane - b.lane || (a.kind === b.kind ? 0 : a.kind === 'device' ? -1 : 1) || a.row - b.row);
  const position = new Map(rows.map((r, i) => [`${r.lane}/${r.kind}/${r.row}`, i]));
  return { rows, rowOf: spans.map((s, i) => position.get(`${s.lane}/${s.kind}/${rowIn[i]}`)!) };
}

function rowLabel(lane: number, kind: 'device' | 'host', row: number): string {
  return `lane ${lane} ${kind === 'device' ? 'device work' : 'host steps'}${row > 0 ? ` (${row + 1})` : ''}`;
}
