// Reads a log of scripts/gpu-before-after.sh (steps named `<bench>, this build, N` and
// `<bench>, earlier build, N`, each followed by the tables the benchmark printed) and prints, for
// each ratio against C++, each build's median over its processes, the processes' values, and the
// change: bench/completion's "device done → JS callback", and bench/small-frames' eager and replay
// ratios per frame size and lane count.
//   node scripts/before-after.mjs gpu-results/log.txt
import { readFileSync } from 'node:fs';

const log = readFileSync(process.argv[2] ?? 'gpu-results/log.txt', 'utf8');

/** The rows of the console.table tables in `text`, as objects keyed by the header's columns. */
function tableRows(text) {
  const rows = [];
  let header;
  for (const line of text.split('\n')) {
    if (!line.startsWith('│')) continue;
    const cells = line.split('│').slice(1, -1).map((c) => c.trim().replace(/^'(.*)'$/, '$1'));
    if (cells[0] === '(index)') header = cells;
    else if (header) rows.push(Object.fromEntries(header.map((h, i) => [h, cells[i]])));
  }
  return rows;
}

/** Each measure's values, by build: `measure → build → numbers`. */
const values = new Map();
const add = (measure, build, value) => {
  if (!Number.isFinite(value)) return;
  const byBuild = values.get(measure) ?? values.set(measure, new Map()).get(measure);
  (byBuild.get(build) ?? byBuild.set(build, []).get(build)).push(value);
};
for (const part of log.split(/^=== step: /m).slice(1)) {
  const name = part.slice(0, part.indexOf('\n'));
  const match = /^(completion|small-frames), (this|earlier) build/.exec(name);
  if (!match) continue;
  const [, bench, build] = match;
  for (const row of tableRows(part)) {
    if (bench === 'completion' && row.case === 'device done → JS callback') add('completion: device done → JS callback', build, Number(row.ratio));
    if (bench === 'small-frames' && row.frame !== undefined) {
      add(`small-frames ${row.frame}, ${row.lanes} lanes: eager ÷ C++`, build, Number(row.eager_of_native));
      add(`small-frames ${row.frame}, ${row.lanes} lanes: replay ÷ C++ graph`, build, Number(row.replay_of_native));
    }
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const rows = [...values].map(([measure, byBuild]) => {
  const now = byBuild.get('this') ?? [];
  const before = byBuild.get('earlier') ?? [];
  return {
    measure,
    this_build: +median(now).toFixed(3),
    earlier: +median(before).toFixed(3),
    change: +(median(now) - median(before)).toFixed(3),
    this_processes: now.map((v) => v.toFixed(3)).join(' '),
    earlier_processes: before.map((v) => v.toFixed(3)).join(' '),
  };
});
console.log('before-after: medians over alternating processes, ratios against the C++ twins');
console.table(rows);
