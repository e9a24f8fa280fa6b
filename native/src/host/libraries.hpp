// The host device's cuBLAS and cuFFT: the same methods as the CUDA backend's CudaBlas and CudaFft
// (cuda/blas.hpp, cuda/fft.hpp), whose calls run the CPU references (gemm.hpp, fft-plan.hpp) as
// commands of the host stream named in the block, in its order, off the main thread.
#pragma once
#include <napi.h>

#include <memory>
#include <vector>

#include "../runtime/bound-block.hpp"
#include "device.hpp"
#include "fft-plan.hpp"

namespace rxcuda::host {

class HostBlas : public Napi::ObjectWrap<HostBlas> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit HostBlas(const Napi::CallbackInfo& info);  // new HostBlas(device)

  // Enqueues the GEMM `block` describes on its stream; 0.
  int run(const double* block);
  int runBound(Napi::Env) { return run(bound_.data()); }

 private:
  Napi::Value gemm(const Napi::CallbackInfo& info);  // (block) -> 0
  Napi::Value bind(const Napi::CallbackInfo& info);  // (block) -> gemm(): 0, on the block bound

  HostDevice::Fault fault_;
  BoundBlock bound_;
};

class HostFft : public Napi::ObjectWrap<HostFft> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit HostFft(const Napi::CallbackInfo& info);  // new HostFft(device)

  // Enqueues the transform `block` describes on its stream; its status (1: no such plan).
  int run(const double* block);
  int runBound(Napi::Env) { return run(bound_.data()); }

 private:
  Napi::Value plan(const Napi::CallbackInfo& info);         // (description) -> [slot, undefined]
  Napi::Value exec(const Napi::CallbackInfo& info);         // (block) -> status
  Napi::Value bind(const Napi::CallbackInfo& info);         // (block) -> exec(): status, on the block bound
  Napi::Value destroyPlan(const Napi::CallbackInfo& info);  // (slot)

  HostDevice::Fault fault_;
  std::vector<std::shared_ptr<HostPlan>> plans_;  // by slot; commands hold theirs
  BoundBlock bound_;
};

}  // namespace rxcuda::host
