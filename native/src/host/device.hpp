// The host backend's device: the CPU, with host memory standing in for device memory.
#pragma once
#include <napi.h>

#include <atomic>
#include <memory>

namespace rxcuda::host {

class HostDevice : public Napi::ObjectWrap<HostDevice> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit HostDevice(const Napi::CallbackInfo& info);

  // The CUresult of the sticky error that broke the device (0 while none has), shared with the
  // work its streams have queued: what runs after the fault skips its effect and reports it, as a
  // GPU's broken context does.
  using Fault = std::shared_ptr<std::atomic<int32_t>>;
  const Fault& fault() const { return fault_; }

 private:
  Napi::Value properties(const Napi::CallbackInfo& info);
  Napi::Value memoryInfo(const Napi::CallbackInfo& info);
  Napi::Value enablePeerAccess(const Napi::CallbackInfo& info);
  Napi::Value poison(const Napi::CallbackInfo& info);

  Fault fault_ = std::make_shared<std::atomic<int32_t>>(0);
};

// Throws the driver's CUDA_ERROR_OUT_OF_MEMORY for `call`, as a GPU answers an allocation it
// cannot make: the host device could not allocate `bytes`.
[[noreturn]] void throwOutOfMemory(Napi::Env env, const char* call, size_t bytes);

// hostAllocHost(device, bytes) -> { ptr, buffer }, hostFreeHost(device, ptr, buffer) and
// hostView(ptr, bytes) -> ArrayBuffer over memory of the host device (for CPU kernels).
void defineHostMemory(Napi::Env env, Napi::Object exports);

}  // namespace rxcuda::host
