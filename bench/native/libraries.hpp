// The C++ twin of bench/libraries.mjs: cuBLAS and cuFFT called directly (through the same
// run-time tables rxcuda loads them into), on rxcuda's streams and memory, in the same process.
#pragma once
#include <napi.h>

namespace bench {

// gemmDevice, gemmHost, fftHost, gemmOnce, fftOnce (see libraries.cpp).
void defineLibraryBaselines(Napi::Env env, Napi::Object exports);

}  // namespace bench
