// Adds a trace to device/value-watches.ts for scripts/gpu-watch-trace.sh: each value's decision,
// its watch's start and its end, with the lane's number, the time and the lane's count state
// (values still to notify, the next count, the probe's mark), appended to
// <out>/watch-trace-<pid>.jsonl every 100 ms and at exit.
import { readFileSync, writeFileSync } from 'node:fs';

const [file, out] = process.argv.slice(2);
let text = readFileSync(file, 'utf8');
const replace = (from, to) => {
  if (!text.includes(from)) throw new Error(`watch-trace-patch: not found in ${file}: ${from}`);
  text = text.replace(from, to);
};
const header = `
import { appendFileSync } from 'node:fs';
const traceRows: string[] = [];
const traceIds = new WeakMap<object, number>();
let traceCount = 0;
let traceTimer: ReturnType<typeof setInterval> | undefined;
const traceFile = ${JSON.stringify(out)} + '/watch-trace-' + process.pid + '.jsonl';
function traceFlush(): void {
  if (traceRows.length > 0) appendFileSync(traceFile, traceRows.splice(0).join('\\n') + '\\n');
}
function trace(lane: object, ...row: unknown[]): void {
  if (!traceIds.has(lane)) traceIds.set(lane, ++traceCount);
  traceRows.push(JSON.stringify([traceIds.get(lane), Math.round(performance.now() * 1000) / 1000, ...row]));
  if (traceRows.length >= 256) traceFlush();
  if (!traceTimer) {
    traceTimer = setInterval(traceFlush, 100);
    traceTimer.unref();
    process.on('exit', traceFlush);
  }
}
`;
replace(`/** How values are watched`, `${header}\n/** How values are watched`);
replace(`    const watched = entry.event !== undefined || entry.onWord; // not notified\n`,
  `    const watched = entry.event !== undefined || entry.onWord; // not notified\n    trace(this.#lane, 'ended', entry.mark, status, watched, this.#skip, this.#nextSkip, this.#probe?.mark ?? 0);\n`);
replace(`    entry.spin = notified ? 0 : spin;\n`,
  `    entry.spin = notified ? 0 : spin;\n    trace(this.#lane, notified ? 'notify' : 'watch', entry.mark, this.#skip, this.#nextSkip, this.#probe?.mark ?? 0);\n`);
replace(`    if (entry.spin === 0) return notifyRefusingCapture`,
  `    trace(lane, 'start', entry.mark, entry.spin);\n    if (entry.spin === 0) return notifyRefusingCapture`);
replace(`  end(entry: Watched, status: number, error?: unknown): void {\n`,
  `  end(entry: Watched, status: number, error?: unknown): void {\n    trace(this.#lane, 'end', entry.mark, status, String(error ?? ''));\n`);
writeFileSync(file, text);
console.log(`watch-trace-patch: ${file} traced to ${out}`);
