#!/usr/bin/env bash
# This build against an earlier one on a GPU, in alternating processes: bench/completion and
# bench/small-frames (BYTES and LANES pick the frames: 1024 bytes, 4 lanes by default), PROCESSES
# rounds (default `1 2 3 4`; BENCHES=completion or small-frames runs one of the two), then the medians of each build's ratios against their C++ twins and
# the change (scripts/before-after.mjs). The earlier build is .bench-old/ or RXCUDA_BENCH_DIST's
# folder: a checkout of that commit, built (dist/, the addon, package.json). bench/launch compares
# two builds within one process instead (RXCUDA_BENCH_BEFORE). Tables go to $OUT/log.txt (default
# ./gpu-results), a line a step to $OUT/summary.txt. Run after the build and
# `node scripts/build-extras.mjs all`:
#   bash scripts/gpu-before-after.sh
set -u
cd "$(dirname "$0")/.."
source scripts/gpu-steps.sh
old=${RXCUDA_BENCH_DIST:-$PWD/.bench-old}
[[ -d $old ]] || { echo "gpu-before-after.sh: no earlier build in $old" | tee -a "$summary"; exit 2; }
frames=(node bench/small-frames.mjs --rounds "${ROUNDS:-3}" --frames "${FRAMES:-8000}" --bytes "${BYTES:-1024}" --lanes "${LANES:-4}")
benches=" ${BENCHES:-completion small-frames} "
for b in $benches; do
  [[ $b == completion || $b == small-frames ]] || { echo "gpu-before-after.sh: BENCHES names $b: completion or small-frames" >&2; exit 2; }
done
for run in ${PROCESSES:-1 2 3 4}; do
  if [[ $benches == *" completion "* ]]; then
    step "completion, this build, $run" 120 env -u RXCUDA_BENCH_DIST OUT="$out/json" node bench/completion.mjs
    step "completion, earlier build, $run" 120 env RXCUDA_BENCH_DIST="$old" OUT="$out/json" node bench/completion.mjs
  fi
  if [[ $benches == *" small-frames "* ]]; then
    step "small-frames, this build, $run" 200 env -u RXCUDA_BENCH_DIST OUT="$out/json" "${frames[@]}"
    step "small-frames, earlier build, $run" 200 env RXCUDA_BENCH_DIST="$old" OUT="$out/json" "${frames[@]}"
  fi
done
node scripts/before-after.mjs "$out/log.txt" | tee -a "$summary"
