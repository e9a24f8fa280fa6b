#!/usr/bin/env bash
# Runs the test suite against an AddressSanitizer/LeakSanitizer/UBSan build of the addon
# (build-asan/), in the environment of scripts/asan-env.sh. Node itself is not instrumented, so the
# sanitizer runtime is preloaded; leaks that Node and the test runner keep at exit are suppressed
# by the frame that allocates them (scripts/lsan.supp), so what is reported is rxcuda's. Leaks are
# checked when a process exits: in the child processes that tests run, not in the test runner's
# workers, which it ends without an exit. On a machine with a CUDA driver, set
# ASAN_OPTIONS=detect_leaks=0: the driver keeps allocations of its own until exit.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${RXCUDA_ASAN_BUILD:-build-asan}
if [[ ! -f $build/Release/rxcuda.node ]]; then
  npx cmake-js compile --out "$build" --CDRXCUDA_SANITIZE=ON
fi
node scripts/build-extras.mjs test --out "$build"   # the test helpers, which a plain build leaves out
source scripts/asan-env.sh
exec npx vitest run "$@"
