#!/usr/bin/env bash
# Conditional graph nodes on a machine with a GPU, each step under a deadline: their tests and the
# device runtime's, whether a kernel that sets a condition compiles, links and runs a while loop
# (scripts/gpu-condition-link.mjs), bench/conditional (WHILE, the host-driven loop and SWITCH
# against the C++ program), bench/device-control (a replayed pipeline's on-device loop against
# the host deciding), and that script again under compute-sanitizer's memcheck where it is
# installed. Tables go to $OUT/log.txt (default: ./gpu-results), the benchmark's JSON to
# $OUT/json, one line a step to $OUT/summary.txt. Run after the build and
# `node scripts/build-extras.mjs all`:
#   bash scripts/gpu-conditional.sh
set -u
cd "$(dirname "$0")/.."
source scripts/gpu-steps.sh
mkdir -p "$out/json"
step 'conditional graph, device-control and device runtime tests' 420 npx vitest run test/behaviour/conditional-graphs.test.ts \
  test/behaviour/device-control.test.ts test/host/device-runtime.test.ts --reporter=verbose
step "docs/graphs.md's examples on the GPU" 300 npx vitest run test/host/readme.test.ts -t 'graphs' --reporter=verbose
step 'a condition-setting kernel links and loops' 120 node scripts/gpu-condition-link.mjs
step 'bench/conditional' 300 env "OUT=$out/json" node bench/conditional.mjs
step 'bench/device-control' 300 env "OUT=$out/json" node bench/device-control.mjs
sanitizer=$(command -v compute-sanitizer || { [[ -x /usr/local/cuda/bin/compute-sanitizer ]] && echo /usr/local/cuda/bin/compute-sanitizer; })
if [[ -n $sanitizer ]]; then
  # API errors are not reported: a kernel's parameters are counted by asking cuFuncGetParamInfo
  # for the next index until it answers CUDA_ERROR_INVALID_VALUE (CUDA 13.0 has no count call),
  # which memcheck would report once per kernel; what is checked is device memory.
  step 'compute-sanitizer memcheck: condition link' 300 "$sanitizer" --tool memcheck --report-api-errors no --error-exitcode 99 \
    node scripts/gpu-condition-link.mjs
  grep -h 'ERROR SUMMARY' "$out/log.txt" | tail -1 >> "$summary"
else
  echo 'compute-sanitizer: not found on PATH or in /usr/local/cuda/bin, memcheck skipped' | tee -a "$summary"
fi
cat "$summary"
