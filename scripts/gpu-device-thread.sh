#!/usr/bin/env bash
# The device threads on a machine with a GPU, each step under a deadline: the GPU and behavioural
# tests, then bench/small-frames against its C++ twin with the device threads the machine gets by
# default, with one (RXCUDA_DEVICE_THREADS=1), and, where .bench-old/ holds an earlier build
# (RXCUDA_BENCH_DIST), with that build, alternating processes; then the launch, graph and
# completion benchmarks. PARTS=tests,behaviour,frames,launches (default: all) runs only some;
# PROCESSES (default `1 2 3`) names the rounds of alternating processes, and VARIANTS (default
# `default,one,old`) which of small-frames' runs each round makes.
# Logs in $OUT (default ./gpu-results). Run after the build and `node scripts/build-extras.mjs all`.
set -u
cd "$(dirname "$0")/.."
source scripts/gpu-steps.sh
mkdir -p "$out/json"
parts=",${PARTS:-tests,behaviour,frames,launches},"
part() { [[ $parts == *",$1,"* ]]; }
# VARIANTS=default,one,old (the default: all) picks small-frames' builds and thread counts.
variants=",${VARIANTS:-default,one,old},"
variant() { [[ $variants == *",$1,"* ]]; }
for v in ${variants//,/ }; do
  [[ $v == default || $v == one || $v == old ]] || { echo "gpu-device-thread.sh: VARIANTS names $v: default, one or old" >&2; exit 2; }
done
part tests && step 'test/gpu' 420 npx vitest run test/gpu
part behaviour && step 'test/behaviour' 420 npx vitest run test/behaviour
frames=(node bench/small-frames.mjs --rounds ${ROUNDS:-3} --frames ${FRAMES:-8000} --bytes ${BYTES:-1024,65536} --lanes ${LANES:-1,4,16})
if part frames; then
  for run in ${PROCESSES:-1 2 3}; do
    variant default && step "small-frames, default threads, $run" 300 env OUT="$out/json/default-$run" "${frames[@]}"
    variant one && step "small-frames, 1 thread, $run" 300 env OUT="$out/json/one-$run" RXCUDA_DEVICE_THREADS=1 "${frames[@]}"
    variant old && [[ -d .bench-old ]] && step "small-frames, earlier build, $run" 300 env OUT="$out/json/old-$run" RXCUDA_BENCH_DIST="$PWD/.bench-old" "${frames[@]}"
  done
fi
if part launches; then
  for bench in launch graph completion; do step "bench/$bench" 180 env OUT="$out/json" node "bench/$bench.mjs"; done
fi
cat "$summary"
