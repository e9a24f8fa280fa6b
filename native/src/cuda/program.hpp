// CUDA C++ compiled by NVRTC on a worker thread, so compiling never blocks the main thread.
#pragma once
#include <napi.h>

namespace rxcuda {

// compile(source, name, options: string[], nameExpressions: string[])
//   -> Promise<{ ptx: string, cubin: Uint8Array | null, log: string, lowered: string[] }>
// rejects with NvrtcError (code, message, log) when NVRTC fails.
// deviceRuntimeLibrary() -> string | null: the CUDA device runtime (libcudadevrt.a) that code
// setting a graph condition from device code is linked with, in the first of
// deviceRuntimePlaces() -> string[] that has it (beside NVRTC first, then the toolkit's places).
void defineProgram(Napi::Env env, Napi::Object exports);

}  // namespace rxcuda
