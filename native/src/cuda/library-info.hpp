// What TypeScript asks of the libraries before their first call: whether cuBLAS and cuFFT can be
// loaded (and, if not, why and where they were looked for), and the layout of the blocks.
#pragma once
#include <napi.h>

namespace rxcuda {

// libraryInfo(name: 'cublas' | 'cufft') -> { available, path, version, problem, searched } (loads
// the library on first ask; never throws) and libraryBlocks() -> the block fields' indices.
void defineLibraryInfo(Napi::Env env, Napi::Object exports);

}  // namespace rxcuda
