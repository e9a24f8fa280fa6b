#!/usr/bin/env bash
# The checks of memory moved away and faults with unsettled steps on a machine with a GPU (after the build: `npm ci`, or `npx tsc`), each under
# a deadline: the behavioural files whose [cuda] halves cover it (moved memory, faults with
# unsettled steps and a trap kernel, whole refusals, collected streams, the stream test that no
# longer depends on timing), the moved-memory cases under compute-sanitizer's memcheck (one process
# each; the trap cases are left out, as the sanitizer reports the trap itself), and the load runs
# on the GPU. Prints one JSON line per step; logs and vitest's JSON report go to $OUT (default
# ./gpu-results).
set -u
cd "$(dirname "$0")/.."
out=${OUT:-gpu-results}
mkdir -p "$out"

step() { # step NAME SECONDS COMMAND...
  local name=$1 limit=$2
  shift 2
  local started=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  # compute-sanitizer's own count, where it ran ("ERROR SUMMARY: 0 errors"); -1 elsewhere.
  local errors
  errors=$(sed -n 's/^========= ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$out/$name.log" | tail -1)
  printf '{"step":"%s","rc":%d,"seconds":%d,"sanitizerErrors":%d}\n' "$name" "$rc" $((SECONDS - started)) "${errors:--1}"
}

files="test/behaviour/moved-memory.test.ts test/behaviour/unsettled-fault.test.ts test/behaviour/refused-whole.test.ts test/behaviour/stream-collected.test.ts test/behaviour/stream.test.ts test/behaviour/scheduler.test.ts test/behaviour/step-failures.test.ts test/host/kernel-args.test.ts"
for file in $files; do
  name=$(basename "$file" .test.ts)
  step "vitest-$name" 300 npx vitest run "$file" --reporter=verbose --reporter=json --outputFile="$out/$name.json"
done
for case in register-transfer register-resizable into-transfer register-detached register-detached-later register-detached-queued upload-refused upload-transfer small-not-marked into-detached rxcuda-memory-transfer device-copy-transfer shared-buffers closed-subarray; do
  step "memcheck-$case" 300 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 99 \
    node --expose-gc test/behaviour/fixtures/moved-memory.mjs "$case" cuda
done
for fault in other-stream closed-stream pipeline; do
  step "fault-$fault" 120 node test/behaviour/fixtures/unsettled-fault.mjs "$fault" cuda
  tail -1 "$out/fault-$fault.log"
done
step 'load-runs' 1500 node scripts/load-runs.mjs all cuda
cat "$out/load-runs.log"
