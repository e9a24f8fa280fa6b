// Pinned host memory. Device memory is stream-ordered and lives on StreamObject (alloc/free).
#pragma once
#include <napi.h>

namespace rxcuda {

// allocHost(device, bytes) -> { ptr: bigint, buffer: ArrayBuffer over the pinned bytes }
// freeHost(device, ptr): frees; the caller detached every ArrayBuffer over the memory first
// (detachBuffer), so no JavaScript can reach it.
void defineMemory(Napi::Env env, Napi::Object exports);

}  // namespace rxcuda
