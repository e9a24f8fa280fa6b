// The host device's cuBLAS and cuFFT: the same methods as the CUDA backend's CudaBlas and CudaFft
// (cuda/blas.hpp, cuda/fft.hpp), whose calls run the CPU references (gemm.hpp, fft-plan.hpp) as
// commands of the host stream named in the block, in its order, off the main thread.
#pragma once
#include <napi.h>

#include <memory>
#include <vector>

#include "device.hpp"
#include "fft-plan.hpp"

namespace rxcuda::host {

class HostBlas : public Napi::ObjectWrap<HostBlas> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit HostBlas(const Napi::CallbackInfo& info);  // new HostBlas(device)

 private:
  Napi::Value gemm(const Napi::CallbackInfo& info);  // (block) -> 0

  HostDevice::Fault fault_;
};

class HostFft : public Napi::ObjectWrap<HostFft> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit HostFft(const Napi::CallbackInfo& info);  // new HostFft(device)

 private:
  Napi::Value plan(const Napi::CallbackInfo& info);         // (description) -> [slot, undefined]
  Napi::Value exec(const Napi::CallbackInfo& info);         // (block) -> 0
  Napi::Value destroyPlan(const Napi::CallbackInfo& info);  // (slot)

  HostDevice::Fault fault_;
  std::vector<std::shared_ptr<HostPlan>> plans_;  // by slot; commands hold theirs
};

}  // namespace rxcuda::host
