// The style and the script of the HTML timeline page (timeline-html.ts writes the rest): plain
// CSS and browser JavaScript, inlined into the page, which loads nothing from anywhere.
// The script draws the rows and bars from the page's JSON data, the time axis, and the zoom, and
// follows one value across the rows when a bar is clicked.

/** The page's style sheet. */
export const PAGE_STYLE = String.raw`
:root { --row: 18px; --label: 13em; color-scheme: light; }
* { box-sizing: border-box; }
body { font: 13px/1.45 system-ui, sans-serif; margin: 0; padding: 16px 20px; color: #1d2330; background: #fff; }
h1 { font-size: 18px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 22px 0 6px; }
p { margin: 2px 0; }
.facts { color: #4a5263; }
.controls { display: flex; gap: 18px; align-items: center; margin: 10px 0 6px; flex-wrap: wrap; }
.controls label { display: flex; gap: 6px; align-items: center; }
.controls input[type=number] { width: 6em; }
.chart { display: flex; border: 1px solid #d5d9e2; border-radius: 4px; }
.labels { flex: 0 0 var(--label); border-right: 1px solid #d5d9e2; background: #f6f7f9; }
.labels div { height: var(--row); padding: 0 8px; font-size: 11.5px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; line-height: var(--row); }
.labels .axis-label { height: 22px; line-height: 22px; color: #6b7385; }
.scroll { flex: 1 1 auto; overflow-x: auto; overflow-y: hidden; }
.tracks { position: relative; width: calc(var(--zoom, 1) * 100%); min-width: 100%; }
.axis { position: relative; height: 22px; border-bottom: 1px solid #d5d9e2; }
.tick { position: absolute; top: 0; height: 22px; border-left: 1px solid #c3c8d4; padding-left: 3px; font-size: 10.5px; color: #6b7385; white-space: nowrap; line-height: 22px; }
.track { position: relative; height: var(--row); border-bottom: 1px solid #eef0f4; }
.track.device { background: #fbfbfd; }
.bar { position: absolute; top: 2px; height: calc(var(--row) - 5px); min-width: 1px; border-radius: 2px; cursor: pointer; }
.tracks.following .bar { opacity: 0.3; }
.tracks.following .bar.on { opacity: 1; outline: 1.5px solid #1d2330; z-index: 1; }
.legend { display: flex; gap: 4px 16px; flex-wrap: wrap; margin: 8px 0 0; }
.legend span { display: inline-flex; align-items: center; gap: 5px; }
.legend i { display: inline-block; width: 12px; height: 12px; border-radius: 2px; }
#followed { margin: 8px 0 0; min-height: 1.45em; color: #4a5263; }
table { border-collapse: collapse; margin: 4px 0; }
th, td { text-align: left; padding: 3px 12px 3px 0; border-bottom: 1px solid #eef0f4; vertical-align: top; }
th { font-weight: 600; color: #4a5263; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td.road { max-width: 60em; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; }
`;

/**
 * The page's script: it reads the JSON in `#rxcuda-timeline-data` (rows, stages, spans as
 * `[row, value, stage, start, duration, bytes]`, times in ms from the first span; stages in the
 * pipeline's order) and draws.
 */
export const PAGE_SCRIPT = String.raw`
(() => {
  'use strict';
  const data = JSON.parse(document.getElementById('rxcuda-timeline-data').textContent);
  const end = data.end > 0 ? data.end : 1;
  const labels = document.getElementById('labels');
  const tracks = document.getElementById('tracks');
  const axis = document.getElementById('axis');
  const followed = document.getElementById('followed');
  const zoom = document.getElementById('zoom');
  const zoomText = document.getElementById('zoom-text');
  const valueInput = document.getElementById('value');

  const ms = (t) => (t >= 1000 ? (t / 1000).toFixed(3) + ' s' : t >= 1 ? t.toFixed(3) + ' ms' : (t * 1000).toFixed(1) + ' µs');
  // A tick's time, with the digits its step needs: 0, 500 µs, 1.5 ms, 20 ms, 2 s.
  const tickText = (t, step) => {
    if (t === 0) return '0';
    const [unit, scale] = step >= 1000 ? [' s', 1 / 1000] : step >= 1 ? [' ms', 1] : [' µs', 1000];
    const digits = Math.max(0, -Math.floor(Math.log10(step * scale) + 1e-9));
    return (t * scale).toFixed(digits) + unit;
  };
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  const size = (n) => {
    let u = 0;
    while (n >= 1024 && u < units.length - 1) { n /= 1024; u++; }
    return Number(n.toFixed(u === 0 || n >= 100 ? 0 : n >= 10 ? 1 : 2)) + ' ' + units[u];
  };
  const describe = (j) => {
    const [row, value, stage, start, duration, bytes] = data.spans[j];
    const r = data.rows[row];
    let text = data.stages[stage].label + ' #' + value + ' · ' + r.label + ' · ' + ms(duration) + ' from ' + ms(start);
    if (bytes > 0) text += ' · ' + size(bytes) + ' at ' + size(duration > 0 ? (bytes * 1000) / duration : 0) + '/s';
    return text;
  };

  const trackOf = data.rows.map((r) => {
    const label = document.createElement('div');
    label.textContent = r.label;
    labels.appendChild(label);
    const track = document.createElement('div');
    track.className = 'track ' + r.kind;
    track.dataset.lane = String(r.lane);
    track.dataset.kind = r.kind;
    track.dataset.row = String(r.row);
    tracks.appendChild(track);
    return track;
  });

  const barsOf = new Map(); // value → its bars
  const fragments = trackOf.map(() => document.createDocumentFragment());
  data.spans.forEach(([row, value, stage, start, duration], j) => {
    const bar = document.createElement('div');
    bar.className = 'bar';
    bar.style.left = (100 * start) / end + '%';
    bar.style.width = (100 * duration) / end + '%';
    bar.style.background = data.stages[stage].color;
    bar.dataset.span = String(j);
    bar.dataset.value = String(value);
    bar.dataset.stage = data.stages[stage].name;
    bar.dataset.kind = data.stages[stage].kind;
    fragments[row].appendChild(bar);
    (barsOf.get(value) ?? barsOf.set(value, []).get(value)).push(bar);
  });
  fragments.forEach((fragment, row) => trackOf[row].appendChild(fragment));

  const drawAxis = () => {
    axis.replaceChildren();
    const width = axis.getBoundingClientRect().width || 1;
    const raw = (end * 90) / width; // a tick every ~90 px
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
    for (let t = 0; t <= end + step / 1e6; t += step) {
      const tick = document.createElement('div');
      tick.className = 'tick';
      tick.style.left = (100 * t) / end + '%';
      tick.textContent = tickText(t, step);
      axis.appendChild(tick);
    }
  };

  let following;
  const follow = (value) => {
    for (const bar of barsOf.get(following) ?? []) bar.classList.remove('on');
    following = barsOf.has(value) ? value : undefined;
    tracks.classList.toggle('following', following !== undefined);
    if (following === undefined) {
      followed.textContent = 'Click a bar (or give a value) to follow that value across the lanes.';
      return;
    }
    const bars = barsOf.get(following);
    for (const bar of bars) bar.classList.add('on');
    const spans = bars.map((bar) => data.spans[Number(bar.dataset.span)]).sort((a, b) => a[2] - b[2] || a[3] - b[3]); // in the pipeline's order
    const first = Math.min(...spans.map((s) => s[3]));
    const last = Math.max(...spans.map((s) => s[3] + s[4]));
    const lanes = [...new Set(spans.map((s) => data.rows[s[0]].lane))].join(', ');
    followed.textContent = 'value #' + following + ' (lane ' + lanes + '), ' + ms(last - first) + ' from its first stage to its last: ' +
      spans.map((s) => data.stages[s[2]].label + ' ' + ms(s[4])).join(' → ');
    valueInput.value = String(following);
  };

  tracks.addEventListener('mouseover', (event) => {
    const bar = event.target.closest('.bar');
    if (bar && !bar.title) bar.title = describe(Number(bar.dataset.span));
  });
  tracks.addEventListener('click', (event) => {
    const bar = event.target.closest('.bar');
    follow(bar ? Number(bar.dataset.value) : undefined);
  });
  valueInput.addEventListener('change', () => follow(valueInput.value === '' ? undefined : Number(valueInput.value)));
  zoom.addEventListener('input', () => {
    const factor = Math.pow(2, Number(zoom.value));
    tracks.style.setProperty('--zoom', String(factor));
    zoomText.textContent = (factor < 10 ? factor.toFixed(1) : factor.toFixed(0)) + '×';
    drawAxis();
  });
  window.addEventListener('resize', drawAxis);
  drawAxis();
  follow(undefined);
  document.body.dataset.ready = 'true';
})();
`;
