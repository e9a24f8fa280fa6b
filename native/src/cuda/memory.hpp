// Pinned host memory: allocated, and page-locked from the user's. Device memory is stream-ordered
// and lives on StreamObject (alloc/free).
#pragma once
#include <napi.h>

namespace rxcuda {

// allocHost(device, bytes) -> { ptr: bigint, buffer: ArrayBuffer over the pinned bytes }
// freeHost(device, ptr): frees; the caller detached every ArrayBuffer over the memory first
// (detachBuffer), so no JavaScript can reach it.
// registerHost(device, ptr, bytes) / unregisterHost(device, ptr): page-locks memory the user
// allocated (cuMemHostRegister), and unlocks it on a worker thread.
void defineMemory(Napi::Env env, Napi::Object exports);

}  // namespace rxcuda
