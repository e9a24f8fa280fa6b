#!/usr/bin/env bash
# Builds and runs bench/study/submit-threads.cpp (a C++ program apart from the addon: whether the
# driver takes small frames faster from several threads). `build` needs cuda.h and nvcc (here or on
# the GPU machine); `run` needs a driver and the built files in build/.
#   bash bench/study/submit-threads.sh build
#   bash bench/study/submit-threads.sh run [streams=16] [frames=40000] [kernels=20] [floats=256] [rounds=3]
set -euo pipefail
cd "$(dirname "$0")/../.."
cuda=${CUDA_PATH:-/usr/local/cuda}
case ${1:-} in
  build)
    mkdir -p build
    g++ -O2 -std=c++17 -Wall -I"$cuda/include" bench/study/submit-threads.cpp -ldl -lpthread -o build/submit-threads
    "${NVCC:-$cuda/bin/nvcc}" -ptx -arch=compute_90 bench/study/submit-threads.cu -o build/submit-threads.ptx ;;
  run)
    shift
    build/submit-threads build/submit-threads.ptx "$@" ;;
  *) echo "usage: bash bench/study/submit-threads.sh build | run [streams] [frames] [kernels] [floats] [rounds]" >&2; exit 2 ;;
esac
