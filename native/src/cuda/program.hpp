// CUDA C++ compiled by NVRTC on a worker thread, so compiling never blocks the main thread.
#pragma once
#include <napi.h>

namespace rxcuda {

// compile(source, name, options: string[], nameExpressions: string[])
//   -> Promise<{ ptx: string, cubin: Uint8Array | null, log: string, lowered: string[] }>
// rejects with NvrtcError (code, message, log) when NVRTC fails.
void defineProgram(Napi::Env env, Napi::Object exports);

}  // namespace rxcuda
