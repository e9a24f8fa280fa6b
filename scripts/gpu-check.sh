#!/usr/bin/env bash
# The whole verification on a machine with a GPU, each step under a deadline so that one that
# hangs is reported and the rest still run: the smoke checks, each GPU and behavioural test file
# alone, the examples, the demo and the benchmarks. Logs go to $OUT (default: ./gpu-results).
# Run after the build: bash scripts/gpu-check.sh   (with compute-sanitizer: MEMCHECK=1)
set -u
cd "$(dirname "$0")/.."
source scripts/gpu-steps.sh
step 'build the test helpers and the bench baselines' 300 node scripts/build-extras.mjs all
step 'rxcuda info' 30 node dist/src/cli/main.js info
step 'smoke: host steps' 120 node scripts/gpu-smoke.mjs
step 'probe: calls while another stream is busy' 60 node scripts/blocking-probe.mjs
for file in test/gpu/*.test.ts test/behaviour/*.test.ts; do
  echo "== $file" >> "$out/log.txt"
  # 10^5 frames twice and 10^6 values, on both backends, take longer than a minute.
  deadline=60; [[ $file == *small-values* ]] && deadline=240
  step "$file" $deadline npx vitest run "$file" --reporter=verbose
done
for example in dist/examples/*.js; do step "$example" 60 node "$example"; done
step 'demo' 120 node dist/src/cli/main.js demo --no-progress --trace "$out/demo-trace.json"
for bench in launch completion pipeline graph libraries; do OUT=$out step "bench/$bench" 180 node "bench/$bench.mjs"; done
OUT=$out step 'bench/small-frames' 540 node bench/small-frames.mjs
# Every GPU of the machine against one (on one GPU, one against one: the paths still run).
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
OUT=$out step "bench/pipeline --devices $((gpus > 0 ? gpus : 1))" 300 node bench/pipeline.mjs --devices $((gpus > 0 ? gpus : 1))
if [[ ${MEMCHECK:-0} == 1 ]]; then
  step 'compute-sanitizer memcheck' 300 compute-sanitizer --tool memcheck --leak-check full --target-processes all \
    npx vitest run ${MEMCHECK_TESTS:-test/gpu --exclude test/gpu/sticky.test.ts}
fi
cat "$summary"
