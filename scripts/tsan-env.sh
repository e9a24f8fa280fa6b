# The environment scripts/tsan.sh runs the tests in, for sourcing: the ThreadSanitizer runtime
# preloaded into Node (which is not instrumented), rxcuda's TSan build as the addon, and the options
# and suppressions the run uses. $build is the TSan build folder (default build-tsan).
build=${RXCUDA_TSAN_BUILD:-build-tsan}
export RXCUDA_ADDON=$PWD/$build/Release/rxcuda.node
export LD_PRELOAD="$(readlink -f "$(gcc -print-file-name=libtsan.so)")"
# halt_on_error=1: the first race ends the process, so a test fails where it happened.
# second_deadlock_stack=1: a lock-order report shows where each lock was taken.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp:print_suppressions=0}
export RXCUDA_SANITIZER=thread
