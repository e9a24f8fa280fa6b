#!/usr/bin/env bash
# This build against an earlier one on a GPU, each bench in its own processes, alternating:
# bench/launch (RXCUDA_BENCH_DIST for the earlier build), then bench/completion and
# bench/small-frames through scripts/gpu-before-after.sh. The earlier build is RXCUDA_BENCH_DIST's
# folder (default .bench-prev/: dist/, package.json and build/Release with both addons).
# BENCHES picks among launch, completion and small-frames (default: all three); PROCESSES the
# rounds (default `1 2 3`). Tables go to $OUT/log.txt, a line a step to $OUT/summary.txt.
#   bash scripts/gpu-benches.sh
set -u
cd "$(dirname "$0")/.."
source scripts/gpu-steps.sh
old=${RXCUDA_BENCH_DIST:-$PWD/.bench-prev}
[[ -d $old ]] || { echo "gpu-benches.sh: no earlier build in $old" | tee -a "$summary"; exit 2; }
benches=" ${BENCHES:-launch completion small-frames} "
for b in $benches; do
  [[ $b == launch || $b == completion || $b == small-frames ]] || { echo "gpu-benches.sh: BENCHES names $b: launch, completion or small-frames" >&2; exit 2; }
done
if [[ $benches == *" launch "* ]]; then
  for run in ${PROCESSES:-1 2 3}; do
    step "launch, this build, $run" 90 env -u RXCUDA_BENCH_DIST OUT="$out/json" node bench/launch.mjs
    step "launch, earlier build, $run" 90 env RXCUDA_BENCH_DIST="$old" OUT="$out/json" node bench/launch.mjs
  done
fi
rest=""
[[ $benches == *" completion "* ]] && rest+=" completion"
[[ $benches == *" small-frames "* ]] && rest+=" small-frames"
if [[ -n $rest ]]; then
  OUT="$out/before-after" RXCUDA_BENCH_DIST="$old" PROCESSES="${PROCESSES:-1 2 3}" BENCHES="${rest# }" bash scripts/gpu-before-after.sh
fi
