#!/usr/bin/env bash
# On a machine with a GPU, after the build, each step under a deadline: the probe of submitting
# threads (bench/study/submit-threads.sh), the fuzzers and the tests of hostile input on both
# backends, the host device's transforms against cuFFT (test/gpu/libraries-agree.test.ts), and
# compute-sanitizer's memcheck over the library tests. Logs go to $OUT (default: ./gpu-results),
# one line a step to $OUT/summary.txt. PARTS=probe,tests,memcheck (the default: all) runs only some.
#   bash scripts/gpu-hostile.sh
set -u
cd "$(dirname "$0")/.."
source scripts/gpu-steps.sh
parts=",${PARTS:-probe,tests,memcheck},"
part() { [[ $parts == *",$1,"* ]]; }
if part probe; then
  [[ -x build/submit-threads ]] || step 'build the probe' 120 bash bench/study/submit-threads.sh build
  for streams in 4 16; do
    step "probe: 1 KiB frames, $streams streams" 120 bash -c "bash bench/study/submit-threads.sh run $streams 40000 20 256 3 | tee -a '$out/probe.jsonl'"
  done
  step 'probe: 64 KiB frames, 16 streams' 120 bash -c "bash bench/study/submit-threads.sh run 16 20000 20 16384 3 | tee -a '$out/probe.jsonl'"
fi
if part tests; then
  step 'GPU tests, fuzzers and hostile input' 420 npx vitest run test/gpu test/host/fuzz-*.test.ts \
    test/behaviour/fft-sizes.test.ts test/behaviour/hostile-arrays.test.ts test/behaviour/closed-objects.test.ts \
    test/behaviour/operator-checks.test.ts test/behaviour/teardown-failures.test.ts test/behaviour/library-*.test.ts \
    --reporter=verbose --reporter=json --outputFile="$out/tests.json"
fi
if part memcheck; then
  step 'compute-sanitizer memcheck: library tests' 300 compute-sanitizer --tool memcheck --target-processes all --error-exitcode 99 \
    npx vitest run test/gpu/libraries-agree.test.ts test/behaviour/blas.test.ts test/behaviour/fft.test.ts test/behaviour/library-repeats.test.ts
  grep -h 'ERROR SUMMARY' "$out/log.txt" | tail -3 >> "$summary"
fi
cat "$summary"
