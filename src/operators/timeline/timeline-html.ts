// A timeline as one self-contained HTML page: the lanes' rows with a bar per span (drawn by the
// page's script from JSON data in the page), each stage's throughput, and the copy road each
// value took through the stages (its copies named by road). Nothing is loaded from anywhere: the page opens where GPUs run, offline.
import { stageLabel, type Span, type StageSummary } from './span.js';
import { typeError } from '../../core/base/errors.js';
import { checkOptions } from '../../core/base/options.js';
import { layoutRows } from './timeline-rows.js';
import { PAGE_SCRIPT, PAGE_STYLE } from './timeline-page.js';

/** What {@link Timeline.toHtml} puts above the timeline. */
export interface TimelineHtmlOptions {
  /**
   * The page's title and heading.
   * @default 'rxcuda timeline'
   */
  readonly title?: string;
  /** A line under the heading, e.g. what ran where. */
  readonly description?: string;
}

// Tableau 10: distinct for most eyes, then hues a golden angle apart.
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
const colour = (i: number) => PALETTE[i] ?? `hsl(${(i * 137.508) % 360} 55% 55%)`;

/** Microseconds are what events resolve: more digits would only make the page larger. */
const round = (ms: number) => Math.round(ms * 1e4) / 1e4;

/**
 * The page for `spans` (as {@link Timeline.spans} gives them), each asked for at `requested[i]`
 * (host time: the pipeline's order), and their `summary`.
 */
export function timelineHtml(spans: readonly Span[], requested: readonly number[], summary: Readonly<Record<string, StageSummary>>, options: TimelineHtmlOptions = {}): string {
  checkOptions('options', options, ['title', 'description']);
  const { title = 'rxcuda timeline', description } = options;
  if (typeof title !== 'string') typeError('title', 'a string', title);
  if (description !== undefined && typeof description !== 'string') typeError('description', 'a string', description);
  const { rows, rowOf } = layoutRows(spans);
  const origin = spans.length > 0 ? spans.reduce((at, s) => Math.min(at, s.start), Infinity) : 0;
  const end = spans.reduce((at, s) => Math.max(at, s.start + s.duration - origin), 0);
  const stages: Stage[] = stageOrder(spans, requested).map((key, i) => {
    const [kind, name] = [key.slice(0, key.indexOf(':')) as 'device' | 'host', key.slice(key.indexOf(':') + 1)];
    return { name, kind, label: stageLabel(kind, name), color: colour(i) };
  });
  const stageIds = new Map(stages.map((s, i) => [`${s.kind}:${s.name}`, i]));
  const byStart = spans.map((s, i) => ({ s, i })).sort((a, b) => a.s.start - b.s.start);
  const data = {
    end: round(end),
    rows,
    stages,
    spans: byStart.map(({ s, i }) => [rowOf[i]!, s.index, stageIds.get(`${s.kind}:${s.stage}`)!, round(s.start - origin), round(s.duration), s.bytes]),
  };
  const values = new Set(spans.map((s) => s.index)).size;
  const lanes = new Set(spans.map((s) => s.lane)).size;
  const facts = `${values} values, ${spans.length} spans on ${lanes} lanes, ${formatMs(end)} from the first span's start to the last one's end` +
    (end > 0 ? `: ${((values * 1000) / end).toFixed(1)} values/s` : '');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escape(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
<h1>${escape(title)}</h1>
${description === undefined ? '' : `<p>${escape(description)}</p>\n`}<p class="facts">${escape(facts)}</p>
</header>
<section id="timeline">
<h2>Lanes</h2>
<div class="controls">
<label>zoom <input id="zoom" type="range" min="0" max="8" step="0.25" value="0"> <span id="zoom-text">1.0×</span></label>
<label>follow value # <input id="value" type="number" min="0" step="1"></label>
</div>
<div class="chart">
<div class="labels" id="labels"><div class="axis-label">time from the first span</div></div>
<div class="scroll"><div class="tracks" id="tracks"><div class="axis" id="axis"></div></div></div>
</div>
<div class="legend">${stages.map((s) => `<span><i style="background:${s.color}"></i>${escape(s.label)}</span>`).join('')}</div>
<p id="followed"></p>
</section>
${stageTable(summary, stages)}
${roadTable(spans, stages, stageIds)}
<script type="application/json" id="rxcuda-timeline-data">${scriptJson(data)}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

/** A stage as the page knows it: its name and kind, as people read it, and its colour. */
interface Stage {
  readonly name: string;
  readonly kind: 'device' | 'host';
  readonly label: string;
  readonly color: string;
}

/** Each stage's count, times and throughput while it ran, as a table. */
function stageTable(summary: Readonly<Record<string, StageSummary>>, stages: readonly Stage[]): string {
  const rows = stages.map((stage) => {
    const s = summary[`${stage.kind}:${stage.name}`];
    if (!s) return '';
    const perSecond = s.mean > 0 ? `${(1000 / s.mean).toFixed(1)}` : '–';
    const rate = s.bytes > 0 ? `${formatBytes(s.bytesPerSecond)}/s` : '';
    return `<tr data-stage="${escape(stage.name)}" data-kind="${stage.kind}"><td><span class="swatch" style="background:${stage.color}"></span>${escape(stage.label)}</td><td>${stage.kind}</td>` +
      `<td class="n">${s.count}</td><td class="n">${s.mean.toFixed(3)}</td><td class="n">${s.total.toFixed(1)}</td><td class="n">${perSecond}</td>` +
      `<td class="n">${s.bytes > 0 ? formatBytes(s.bytes) : ''}</td><td class="n">${rate}</td></tr>`;
  });
  return `<section id="stages">
<h2>Stages</h2>
<p>Throughput while the stage ran: values per second (1 / mean) and, for copies, bytes per second.</p>
<table>
<thead><tr><th>stage</th><th>kind</th><th>values</th><th>mean ms</th><th>busy ms</th><th>values/s</th><th>moved</th><th>rate</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</section>`;
}

/** The copy roads the values took (the stages each went through, in order), with the values on each. */
function roadTable(spans: readonly Span[], stages: readonly Stage[], stageIds: ReadonlyMap<string, number>): string {
  const perValue = new Map<number, Span[]>();
  for (const s of spans) (perValue.get(s.index) ?? perValue.set(s.index, []).get(s.index)!).push(s);
  const roads = new Map<string, { stages: number[]; values: number[]; lanes: Set<number> }>();
  for (const [index, own] of perValue) {
    const ids = own.map((s) => stageIds.get(`${s.kind}:${s.stage}`)!).sort((a, b) => a - b);
    const key = ids.join(',');
    const road = roads.get(key) ?? roads.set(key, { stages: ids, values: [], lanes: new Set() }).get(key)!;
    road.values.push(index);
    for (const s of own) road.lanes.add(s.lane);
  }
  const sorted = [...roads.values()].sort((a, b) => b.values.length - a.values.length);
  const rows = sorted.map((road) =>
    `<tr><td class="road">${road.stages.map((id) => escape(stages[id]!.label)).join(' → ')}</td><td class="n">${road.values.length}</td>` +
    `<td>${escape(ranges(road.values))}</td><td>${[...road.lanes].sort((a, b) => a - b).join(', ')}</td></tr>`,
  );
  return `<section id="roads">
<h2>Roads</h2>
<p>The stages each value went through, in the pipeline's order; click a bar above to follow one value.</p>
<table>
<thead><tr><th>road</th><th>values</th><th>which</th><th>lanes</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</section>`;
}

/**
 * The stages (`kind:stage`) in the pipeline's order: by where they come, on average, among the
 * stages of each value in the order they were asked for. (Not by when they ran: device and host
 * clocks line up only to within the time a record takes to reach its stream, microseconds on a
 * GPU but the wake-up of a thread on the host device, and a host step is asked for before the
 * device work after it, but runs when its stream gets there.)
 */
function stageOrder(spans: readonly Span[], requested: readonly number[]): string[] {
  const perValue = new Map<number, number[]>();
  spans.forEach((s, i) => void (perValue.get(s.index) ?? perValue.set(s.index, []).get(s.index)!).push(i));
  const ranks = new Map<string, { sum: number; count: number; first: number }>();
  for (const own of perValue.values()) {
    own.sort((a, b) => requested[a]! - requested[b]!);
    own.forEach((j, i) => {
      const s = spans[j]!;
      const key = `${s.kind}:${s.stage}`;
      const rank = ranks.get(key) ?? ranks.set(key, { sum: 0, count: 0, first: requested[j]! }).get(key)!;
      rank.sum += own.length > 1 ? i / (own.length - 1) : 0;
      rank.count++;
      rank.first = Math.min(rank.first, requested[j]!);
    });
  }
  const mean = (key: string) => ranks.get(key)!.sum / ranks.get(key)!.count;
  return [...ranks.keys()].sort((a, b) => mean(a) - mean(b) || ranks.get(a)!.first - ranks.get(b)!.first);
}

/** `0–4, 7, 9–12`: sorted integers as ranges, the first 40 of them. */
function ranges(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const first = sorted[i]!;
    while (i + 1 < sorted.length && sorted[i + 1] === sorted[i]! + 1) i++;
    parts.push(first === sorted[i] ? `#${first}` : `#${first}–${sorted[i]}`);
  }
  return parts.length > 40 ? `${parts.slice(0, 40).join(', ')} … and ${parts.length - 40} more ranges` : parts.join(', ');
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(3)} s` : `${ms.toFixed(3)} ms`;
}

const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

function formatBytes(count: number): string {
  let value = count;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toFixed(unit === 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2))} ${UNITS[unit]}`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that cannot end the script element it is in, nor open a comment there. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}
