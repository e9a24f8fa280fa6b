// Shared pieces of the benchmarks: the native baseline addon, statistics, and the report.
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/** The native C++ baselines, built beside the addon by cmake-js (`npm run bench` builds them first). */
export const baseline = (() => {
  try {
    return require('../build/Release/rxcuda_bench.node');
  } catch (error) {
    throw new Error(`The native baselines (build/Release/rxcuda_bench.node) could not be loaded: \`npm run bench\` builds them first, or run \`node scripts/build-extras.mjs bench\`.\n${error.message}`);
  }
})();

/**
 * The rxcuda a benchmark measures: this checkout's, through its package entry point, or with
 * RXCUDA_BENCH_DIST=<folder> (or `other`) another build's (an earlier one, say): a built checkout or
 * package folder, whose package.json names its entry, or the dist folder of one. `entry` names
 * a subpath of the package instead of its main entry ('./internal').
 */
export async function rxcudaUnderTest(other = process.env.RXCUDA_BENCH_DIST, entry = '.') {
  if (!other) return import(entry === '.' ? 'rxcuda' : `rxcuda/${entry.slice(2)}`);
  const folder = isAbsolute(other) ? other : resolve(import.meta.dirname, other);
  const manifest = join(folder, 'package.json');
  const file = existsSync(manifest) ? join(folder, JSON.parse(readFileSync(manifest, 'utf8')).exports[entry].default) : join(folder, `src/${entry === '.' ? 'index' : entry.slice(2)}.js`);
  return import(pathToFileURL(file).href);
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Prints a table and writes it as JSON to $OUT (or bench/results/) as <name>.json. */
export function report(name, title, rows, target) {
  console.log(`\n${name}: ${title}${target ? ` (target: ${target})` : ''}`);
  console.table(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? Number(v.toFixed(3)) : v]))));
  const dir = process.env.OUT || join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.json`), JSON.stringify({ name, title, target, rows, node: process.version, date: new Date().toISOString() }, null, 2));
}
