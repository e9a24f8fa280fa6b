// Timeline.toHtml's page in a real browser (Debian's chromium, headless): it loads with no console
// error and asks for nothing, its bars sit where the spans are (read back from the DOM), it zooms
// and follows a value, its tables give each stage's throughput and each value's road; and
// `rxcuda demo --report` writes such a page.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lastValueFrom, map, range, toArray } from 'rxjs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Device, LanePool, Timeline, download, host, launch, onStreams, upload, type Span } from '../../src/index.js';
import { launchChromium, openFile, type Loaded } from '../support/browser.js';
import { rxcuda } from '../support/cli.js';
import { testKernels } from '../support/kernels.js';
import { describeWithTool } from '../support/tools.js';

// The page's script runs in the browser, where these exist; the test's own types have no DOM.
interface BrowserElement {
  readonly dataset: Record<string, string | undefined>;
  readonly parentElement: BrowserElement;
  readonly classList: { contains(name: string): boolean };
  readonly textContent: string | null;
  getBoundingClientRect(): { left: number; width: number };
  querySelectorAll(selector: string): ArrayLike<BrowserElement>;
}
declare const document: { querySelectorAll(selector: string): ArrayLike<BrowserElement>; getElementById(id: string): BrowserElement };

/** Every bar as drawn: its span's keys, its row's, and its place in pixels within its row. */
interface DrawnBar {
  stage: string;
  kind: string;
  value: number;
  on: boolean;
  row: { lane: number; kind: string; row: number };
  left: number;
  width: number;
  trackWidth: number;
}

function readBars(loaded: Loaded): Promise<DrawnBar[]> {
  return loaded.page.evaluate(() =>
    Array.from(document.querySelectorAll('.bar'), (bar) => {
      const track = bar.parentElement;
      const b = bar.getBoundingClientRect();
      const t = track.getBoundingClientRect();
      return {
        stage: bar.dataset.stage!,
        kind: bar.dataset.kind!,
        value: Number(bar.dataset.value),
        on: bar.classList.contains('on'),
        row: { lane: Number(track.dataset.lane), kind: track.dataset.kind!, row: Number(track.dataset.row) },
        left: b.left - t.left,
        width: b.width,
        trackWidth: t.width,
      };
    }),
  );
}

/** The rows of a table of the page, as cells' text. */
function readTable(loaded: Loaded, id: string): Promise<string[][]> {
  return loaded.page.evaluate((section) => Array.from(document.querySelectorAll(`#${section} tbody tr`), (tr) => Array.from(tr.querySelectorAll('td'), (td) => (td.textContent ?? '').trim())), id);
}

const key = (s: { lane: number; kind: string; stage: string; index: number }) => `${s.lane}/${s.kind}/${s.stage}/#${s.index}`;
const label = (kind: string, stage: string) => (kind === 'device' ? stage : stage === 'host' ? 'host step' : `host ${stage}`);
// The roads of the frames, in the pipeline's order: a large frame's copies run on native threads.
const LARGE = 'host stage input [workers] → upload input [staged] → invert → host step → download output [new array] → host copy output [workers]';
const SMALL = 'upload input [staged] → invert → host step → download output [new array]';

/** Checks that each drawn bar sits at its span's start and is its span's length, within a pixel. */
function misplaced(bars: DrawnBar[], spans: Span[]): string[] {
  const origin = Math.min(...spans.map((s) => s.start));
  const end = Math.max(...spans.map((s) => s.start + s.duration)) - origin;
  const byKey = new Map(spans.map((s) => [key(s), s]));
  const wrong: string[] = [];
  for (const bar of bars) {
    const span = byKey.get(key({ lane: bar.row.lane, kind: bar.kind, stage: bar.stage, index: bar.value }))!;
    const left = ((span.start - origin) / end) * bar.trackWidth;
    const width = Math.max((span.duration / end) * bar.trackWidth, 1); // bars are at least a pixel wide
    if (Math.abs(bar.left - left) > 1 || Math.abs(bar.width - width) > 1) wrong.push(`${key(span)}: drawn at ${bar.left.toFixed(1)}+${bar.width.toFixed(1)} px, span at ${left.toFixed(1)}+${width.toFixed(1)} px`);
  }
  return wrong;
}

describeWithTool('chromium', 'Timeline.toHtml in headless Chromium', () => {
  let browser: Browser;
  let folder: string;
  let timeline: Timeline;
  let spans: Span[];
  let loaded: Loaded;
  const VALUES = 12;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'rxcuda-html-'));
    browser = await launchChromium();
    // Even frames over 256 KiB, whose copies to and from staging run on native threads (and
    // overlap on a lane), odd ones smaller, copied on the main thread: two roads.
    const device = Device.host();
    const kernels = await testKernels(device);
    timeline = new Timeline();
    const pool = new LanePool(device, { lanes: 2, inFlight: 4, timeline });
    await lastValueFrom(
      range(0, VALUES).pipe(
        map((i) => new Uint32Array(i % 2 === 0 ? 1 << 17 : 1 << 12).fill(i)),
        onStreams(pool),
        upload((frame) => frame),
        launch(kernels.invert, (w) => ({ config: { grid: w.value.length / 256, block: 256 }, args: [w.buffers.input, w.value.length] })),
        host(() => {}),
        download((w) => w.buffers.input),
        toArray(),
      ),
    );
    pool.close();
    spans = timeline.spans();
    const page = join(folder, 'timeline.html');
    await timeline.writeHtml(page, { title: 'twelve frames', description: 'on two lanes of the host device' });
    loaded = await openFile(browser, page, 'body[data-ready=true]');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('loads with no console error and asks for nothing but itself', () => {
    expect(loaded.errors).toEqual([]);
    expect(loaded.requests).toEqual([pathToFileURL(join(folder, 'timeline.html')).href]);
  });

  it('shows the title, the description and what ran', async () => {
    expect(await loaded.page.title()).toBe('twelve frames');
    const header = await loaded.page.evaluate(() => document.querySelectorAll('header')[0]!.textContent ?? '');
    expect(header).toContain('on two lanes of the host device');
    expect(header).toContain(`${VALUES} values, ${spans.length} spans on 2 lanes`);
  });

  it('draws one bar per span, in a row of its lane and kind', async () => {
    const bars = await readBars(loaded);
    expect(bars.map((b) => key({ lane: b.row.lane, kind: b.row.kind, stage: b.stage, index: b.value })).sort()).toEqual(spans.map(key).sort());
    expect(bars.every((b) => b.row.kind === b.kind)).toBe(true);
  });

  it('puts overlapping spans in rows of their own, none overlapping another in its row', async () => {
    const bars = await readBars(loaded);
    const rows = new Map<string, DrawnBar[]>();
    for (const b of bars) (rows.get(JSON.stringify(b.row)) ?? rows.set(JSON.stringify(b.row), []).get(JSON.stringify(b.row))!).push(b);
    expect([...rows.keys()].some((r) => JSON.parse(r).row > 0)).toBe(true); // the staging copies overlapped
    for (const row of rows.values()) {
      row.sort((a, b) => a.left - b.left);
      for (let i = 1; i < row.length; i++) expect(row[i]!.left).toBeGreaterThanOrEqual(row[i - 1]!.left + row[i - 1]!.width - 1);
    }
  });

  it('places each bar at its span\'s start, as long as its span', async () => {
    expect(misplaced(await readBars(loaded), spans)).toEqual([]);
  });

  it('keeps the bars at their spans when zoomed in', async () => {
    const page = await openFile(browser, join(folder, 'timeline.html'), 'body[data-ready=true]');
    const before = (await readBars(page))[0]!.trackWidth;
    await page.page.locator('#zoom').fill('2'); // 2^2: four times as wide
    const bars = await readBars(page);
    expect(bars[0]!.trackWidth / before).toBeCloseTo(4, 1);
    expect(misplaced(bars, spans)).toEqual([]);
    expect(page.errors).toEqual([]);
    await page.page.close();
  });

  it('follows a value across the rows when one of its bars is clicked', async () => {
    const page = await openFile(browser, join(folder, 'timeline.html'), 'body[data-ready=true]');
    await page.page.locator('.bar[data-value="4"][data-stage="invert"]').click();
    const bars = await readBars(page);
    expect(bars.filter((b) => b.on).map((b) => b.value)).toEqual(bars.filter((b) => b.value === 4).map(() => 4));
    expect(bars.filter((b) => b.on)).toHaveLength(spans.filter((s) => s.index === 4).length);
    const followed = await page.page.locator('#followed').textContent();
    expect(followed).toMatch(/^value #4 \(lane \d\), [\d.]+ (µs|ms|s) from its first stage to its last: /);
    expect(followed!.split(': ').slice(1).join(': ').split(' → ').map((stage) => stage.replace(/ [\d.]+ (µs|ms|s)$/, ''))).toEqual(LARGE.split(' → '));
    await page.page.close();
  });

  it('lists every stage with its values, mean time and throughput', async () => {
    const rows = await readTable(loaded, 'stages');
    const summary = timeline.summary();
    expect(rows.map((r) => r[0]).sort()).toEqual(Object.values(summary).map((s) => label(s.kind, s.stage)).sort());
    for (const [stage, kind, values, mean, , perSecond, , rate] of rows) {
      const s = Object.values(summary).find((x) => label(x.kind, x.stage) === stage)!;
      expect([kind, Number(values), Number(mean)]).toEqual([s.kind, s.count, Number(s.mean.toFixed(3))]);
      expect(Number(perSecond)).toBeCloseTo(1000 / s.mean, 0);
      expect(rate !== '').toBe(s.bytes > 0);
    }
  });

  it('lists the road each value took, in the pipeline\'s order, with the values that took it', async () => {
    const rows = await readTable(loaded, 'roads');
    expect(rows.map(([road, count, which]) => [road, Number(count), which])).toEqual([
      [LARGE, 6, '#0, #2, #4, #6, #8, #10'],
      [SMALL, 6, '#1, #3, #5, #7, #9, #11'],
    ]);
  });

  it('is written by rxcuda demo --report, and loads with a bar for each of its spans', async () => {
    const report = join(folder, 'report.html');
    const run = rxcuda(['demo', '--frames', '12', '--pixels', '4096', '--lanes', '2', '--report', report, '--trace', join(folder, 'trace.json')], folder);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`report: ${report}`);
    const page = await openFile(browser, report, 'body[data-ready=true]');
    expect(page.errors).toEqual([]);
    expect(await page.page.title()).toMatch(/^rxcuda demo on the host device/);
    const trace = JSON.parse(readFileSync(join(folder, 'trace.json'), 'utf8')) as { traceEvents: { ph: string }[] };
    expect(await page.page.locator('.bar').count()).toBe(trace.traceEvents.filter((e) => e.ph === 'X').length);
    await page.page.close();
  });
});
