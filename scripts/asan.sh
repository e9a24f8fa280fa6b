#!/usr/bin/env bash
# Runs the test suite against an AddressSanitizer/LeakSanitizer/UBSan build of the addon
# (build-asan/). Node itself is not instrumented, so the sanitizer runtime is preloaded; leaks
# that Node and the test runner keep at exit are suppressed by name (scripts/lsan.supp), so what
# is reported is rxcuda's. On a machine with a CUDA driver, set ASAN_OPTIONS=detect_leaks=0: the
# driver keeps allocations of its own until exit.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${RXCUDA_ASAN_BUILD:-build-asan}
if [[ ! -f $build/Release/rxcuda.node ]]; then
  npx cmake-js compile --out "$build" --CDRXCUDA_SANITIZE=ON
fi
runtime=$build/libasan.so.8
[[ -f $runtime ]] || runtime=$(gcc -print-file-name=libasan.so)
export RXCUDA_ADDON=$PWD/$build/Release/rxcuda.node
export LD_PRELOAD="$(readlink -f "$runtime")"
# protect_shadow_gap=0: the CUDA driver maps memory where ASan's shadow gap would be.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:protect_shadow_gap=0:abort_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export RXCUDA_SANITIZER=address
exec npx vitest run "$@"
