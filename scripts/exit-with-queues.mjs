// The long run of test/behaviour/exit-with-queues.test.ts: rounds of workers that end with full
// queues, then main threads that call process.exit(0) with theirs, each in a child process so
// that a crash is seen as a signal. Needs the TypeScript build (npx tsc -p tsconfig.json).
//   node scripts/exit-with-queues.mjs --rounds 200 --backend host [--workers 8] [--main-runs 10]
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '200' },
    workers: { type: 'string', default: '8' },
    backend: { type: 'string', default: 'host' },
    'main-runs': { type: 'string', default: '10' },
  },
});
const child = new URL('exit-with-queues-child.mjs', import.meta.url).pathname;
const common = ['--workers', values.workers, '--backend', values.backend];
let failed = false;

function run(label, args, check) {
  const start = performance.now();
  const result = spawnSync(process.execPath, [child, ...args, ...common], { encoding: 'utf8', timeout: 3_600_000 });
  const seconds = ((performance.now() - start) / 1000).toFixed(1);
  const problem =
    result.signal !== null ? `died by ${result.signal}` : result.status !== 0 ? `exit status ${result.status}` : check(result.stdout.trim());
  console.log(`${label}: ${problem ?? 'ok'} in ${seconds} s  ${result.stdout.trim()}`);
  if (problem) {
    failed = true;
    if (result.stderr) console.log(result.stderr.slice(0, 4000));
  }
}

const workers = Number(values.workers);
const rounds = Number(values.rounds);
run(`${rounds} rounds of ${workers} workers`, ['--mode', 'workers', '--rounds', values.rounds], (out) => {
  const report = JSON.parse(out);
  const half = (rounds * workers) / 2;
  if ((report.exits['1'] ?? 0) !== Math.ceil(half) || (report.exits['7'] ?? 0) !== Math.floor(half))
    return `unexpected exit codes ${JSON.stringify(report.exits)}`;
  if (JSON.stringify(report.after) !== JSON.stringify(report.before)) return 'completion records not all given back';
  return undefined;
});
for (let i = 0; i < Number(values['main-runs']); i++)
  run(`main thread exit ${i + 1}`, ['--mode', 'main'], (out) => {
    const report = JSON.parse(out);
    return report.ranBeforeExit >= 10 && report.ranBeforeExit < report.queued ? undefined : 'exited at the wrong point';
  });
process.exitCode = failed ? 1 : 0;
