#!/usr/bin/env bash
# Traces a pipeline's value watches on a GPU (device/value-watches.ts), for a watch test that
# fails there: a copy of the source with a trace added records, per lane, each value's decision
# (watched or notified), when its watch started, and the status it ended with and when; then the
# named tests of test/gpu/watch-roads.test.ts run against it, and the trace goes to
# $OUT/watch-trace-<pid>.jsonl, a JSON array a line (default ./gpu-results). The source is
# restored afterwards, however the script ends.
#   bash scripts/gpu-watch-trace.sh 'notifies twice' 'all watched'
set -u
cd "$(dirname "$0")/.."
source scripts/gpu-steps.sh
file=src/core/device/value-watches.ts
# A run cut short before its trap left the file traced: git has it as it was.
grep -q traceRows "$file" && git checkout -- "$file"
cp "$file" "$out/value-watches.ts.orig"
trap 'cp "$out/value-watches.ts.orig" "$file"' EXIT
node scripts/watch-trace-patch.mjs "$file" "$out" || exit 1
for name in "$@"; do
  for round in 1 2 3; do
    step "watch-roads: $name (round $round)" 120 npx vitest run test/gpu/watch-roads.test.ts -t "$name" --reporter=verbose
  done
done
cat "$summary"
