#!/usr/bin/env bash
# Runs the test suite against a ThreadSanitizer build of the addon (build-tsan/), in the environment
# of scripts/tsan-env.sh. Node itself is not instrumented, so the sanitizer runtime is preloaded:
# races are seen in rxcuda's code (and the test helpers'), and Node's locks, condition variables
# and libuv's wake-ups are seen through the runtime's interceptors, so what they order is ordered.
# Reports wholly inside Node, V8 or libuv are suppressed (scripts/tsan.supp); a report with a frame
# of rxcuda's ends the process that made it. Tests that measure RSS or time skip under
# RXCUDA_SANITIZER, which TSan's shadow memory and slowdown would fail.
# Vitest starts from Node directly, not through npx: npx runs it through /bin/sh, and a shell with
# the runtime preloaded crashes as it starts (so does a test that spawns one).
# Run: scripts/tsan.sh [vitest arguments], e.g. scripts/tsan.sh test/behaviour/stream.test.ts
set -euo pipefail
cd "$(dirname "$0")/.."
build=${RXCUDA_TSAN_BUILD:-build-tsan}
if [[ ! -f $build/Release/rxcuda.node ]]; then
  npx cmake-js compile --out "$build" --CDRXCUDA_SANITIZE_THREAD=ON
fi
node scripts/build-extras.mjs test --out "$build"   # the test helpers, which a plain build leaves out
source scripts/tsan-env.sh
exec node node_modules/vitest/vitest.mjs run "$@"
