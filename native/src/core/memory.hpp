// Pinned host memory. Device memory is stream-ordered and lives on StreamObject (alloc/free).
#pragma once
#include <napi.h>

namespace rxcuda {

// allocHost(device, bytes) -> { ptr: bigint, buffer: ArrayBuffer over the pinned bytes }
// freeHost(device, ptr, buffer): detaches buffer, so no JavaScript can reach the memory, then frees.
void defineMemory(Napi::Env env, Napi::Object exports);

}  // namespace rxcuda
