// Builds the addons that only the tests and the benchmarks load, which a plain install (`npm ci`,
// `npm run build:native`) leaves out: rxcuda_test (test/native/helpers.cpp) and rxcuda_bench (the
// native baselines of bench/). `npm test` and `npm run bench` run it first; it takes a second
// when they are built and up to date.
// Run: node scripts/build-extras.mjs [test|bench|all] [--out build]
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const TARGETS = { test: ['rxcuda_test'], bench: ['rxcuda_bench'], all: ['rxcuda_test', 'rxcuda_bench'] };
const [which = 'all', ...rest] = process.argv.slice(2);
if (!(which in TARGETS) || (rest.length > 0 && !(rest.length === 2 && rest[0] === '--out'))) {
  console.error('usage: node scripts/build-extras.mjs [test|bench|all] [--out build]');
  process.exit(2);
}
const out = rest[1] ?? 'build';
const root = fileURLToPath(new URL('..', import.meta.url));
const cmakeJs = createRequire(import.meta.url).resolve('cmake-js/bin/cmake-js');
for (const target of TARGETS[which]) {
  // Configures the folder first where it is not (a fresh clone whose addon came prebuilt, say).
  execFileSync(process.execPath, [cmakeJs, 'build', '--out', out, '--target', target, '--log-level', 'warn'], { cwd: root, stdio: 'inherit' });
}
