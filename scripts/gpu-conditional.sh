#!/usr/bin/env bash
# Conditional graph nodes on a machine with a GPU, each step under a deadline: their tests and the
# device runtime's, whether a kernel that sets a condition compiles, links and runs a while loop
# (scripts/gpu-condition-link.mjs), bench/conditional (WHILE, the host-driven loop and SWITCH
# against the C++ program), and that script again under compute-sanitizer's memcheck where it is
# installed. Tables go to $OUT/log.txt (default: ./gpu-results), the benchmark's JSON to
# $OUT/json, one line a step to $OUT/summary.txt. Run after the build and
# `node scripts/build-extras.mjs all`:
#   bash scripts/gpu-conditional.sh
set -u
cd "$(dirname "$0")/.."
source scripts/gpu-steps.sh
mkdir -p "$out/json"
step 'conditional graph and device runtime tests' 300 npx vitest run test/behaviour/conditional-graphs.test.ts \
  test/host/device-runtime.test.ts --reporter=verbose
step 'a condition-setting kernel links and loops' 120 node scripts/gpu-condition-link.mjs
step 'bench/conditional' 300 env "OUT=$out/json" node bench/conditional.mjs
sanitizer=$(command -v compute-sanitizer || { [[ -x /usr/local/cuda/bin/compute-sanitizer ]] && echo /usr/local/cuda/bin/compute-sanitizer; })
if [[ -n $sanitizer ]]; then
  step 'compute-sanitizer memcheck: condition link' 300 "$sanitizer" --tool memcheck --error-exitcode 99 \
    node scripts/gpu-condition-link.mjs
  grep -h 'ERROR SUMMARY' "$out/log.txt" | tail -1 >> "$summary"
else
  echo 'compute-sanitizer: not found on PATH or in /usr/local/cuda/bin, memcheck skipped' | tee -a "$summary"
fi
cat "$summary"
