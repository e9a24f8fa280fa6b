#!/usr/bin/env bash
# What docs/performance.md's "Small values" reports, measured on a machine with a GPU, each step under a
# deadline: the tests of small values and of both watch roads (events, words), bench/small-frames
# (eager and replay against the C++ program, both watch roads, the C++ program with its own
# watchers), the per-value study (both forms of `launch`), memory over 10^6 values, bench/pipeline
# on both watch roads, and the launch, graph and completion benchmarks. Tables go to
# $OUT/log.txt (default: ./gpu-results), the benchmarks' JSON to $OUT/json, one line a step to
# $OUT/summary.txt. PARTS=tests,frames,studies,copies,launches (the default: all) runs only some,
# so that the run can be split over commands of a few minutes each. Run after the build and
# `node scripts/build-extras.mjs all`:
#   bash scripts/gpu-small-values.sh
set -u
cd "$(dirname "$0")/.."
source scripts/gpu-steps.sh
mkdir -p "$out/json"
json=(env "OUT=$out/json") # the benchmarks write their JSON there
parts=",${PARTS:-tests,frames,studies,copies,launches},"
part() { [[ $parts == *",$1,"* ]]; }
if part tests; then
  for file in test/gpu/watch-roads.test.ts test/gpu/sticky-pipeline.test.ts test/behaviour/launch-given-once.test.ts \
              test/behaviour/spin-pipeline.test.ts test/behaviour/lane-buffers.test.ts test/behaviour/small-values.test.ts; do
    echo "== $file" >> "$out/log.txt"
    step "$file" 240 npx vitest run "$file" --reporter=verbose
  done
fi
part frames && step 'bench/small-frames' 420 "${json[@]}" node bench/small-frames.mjs --rounds 3 --frames 8000 --words --native-watchers --per-value
if part studies; then
  step 'per-value, arguments given once' 120 "${json[@]}" node bench/study/per-value.mjs
  step 'per-value, one function per launch' 120 "${json[@]}" node bench/study/per-value.mjs --args per-value
  step 'per-value, 16 lanes, replay' 120 "${json[@]}" node bench/study/per-value.mjs --roads replay --lanes 16
  step 'memory over 10^6 values' 240 "${json[@]}" node --expose-gc bench/study/memory-scale.mjs
fi
if part copies; then
  step 'bench/pipeline, events' 240 "${json[@]}" node bench/pipeline.mjs
  step 'bench/pipeline, words' 240 "${json[@]}" node bench/pipeline.mjs --words
fi
if part launches; then
  for bench in launch graph completion; do step "bench/$bench" 180 "${json[@]}" node "bench/$bench.mjs"; done
fi
cat "$summary"
