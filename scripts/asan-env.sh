# The environment scripts/asan.sh runs the tests in, for sourcing: the sanitizer runtime preloaded
# into Node (which is not instrumented), rxcuda's ASan build as the addon, and the options and
# suppressions the run uses. $build is the ASan build folder (default build-asan).
build=${RXCUDA_ASAN_BUILD:-build-asan}
runtime=$build/libasan.so.8
[[ -f $runtime ]] || runtime=$(gcc -print-file-name=libasan.so)
export RXCUDA_ADDON=$PWD/$build/Release/rxcuda.node
export LD_PRELOAD="$(readlink -f "$runtime")"
# protect_shadow_gap=0: the CUDA driver maps memory where ASan's shadow gap would be.
# allocator_may_return_null=1: an allocation larger than memory fails as it does without ASan (the
# host device answers it with CUDA_ERROR_OUT_OF_MEMORY, which a test checks).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:protect_shadow_gap=0:abort_on_error=1:allocator_may_return_null=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export RXCUDA_SANITIZER=address
