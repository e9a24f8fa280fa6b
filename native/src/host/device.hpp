// The host backend's device: the CPU, with host memory standing in for device memory.
#pragma once
#include <napi.h>

namespace rxcuda::host {

class HostDevice : public Napi::ObjectWrap<HostDevice> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit HostDevice(const Napi::CallbackInfo& info);

 private:
  Napi::Value properties(const Napi::CallbackInfo& info);
  Napi::Value memoryInfo(const Napi::CallbackInfo& info);
  Napi::Value enablePeerAccess(const Napi::CallbackInfo& info);
};

// hostAllocHost(device, bytes) -> { ptr, buffer }, hostFreeHost(device, ptr, buffer) and
// hostView(ptr, bytes) -> ArrayBuffer over memory of the host device (for CPU kernels).
void defineHostMemory(Napi::Env env, Napi::Object exports);

}  // namespace rxcuda::host
