// cuFFT on a CUDA device: the plans of one device and environment, each made off the main thread
// (plan(), since making one allocates and uploads its tables) and destroyed off it (destroyPlan(),
// since that frees device memory, which waits for the device). The cache, its bound and which
// plan goes when are TypeScript's (src/core/libraries/fft-plans.ts); a plan is named by its slot.
#pragma once
#include <napi.h>

#include <memory>
#include <vector>

#include "../runtime/bound-block.hpp"
#include "../driver/cufft.hpp"
#include "library-graph.hpp"

namespace rxcuda {

class FftObject : public Napi::ObjectWrap<FftObject>, public LibraryCalls {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit FftObject(const Napi::CallbackInfo& info);  // new CudaFft(device)
  ~FftObject() override { close(); }

  int enqueue(cu::Stream stream, const double* block, cu::DevicePtr workspace, size_t bytes) override;
  void forget() override;
  int runBound(Napi::Env env) { return run(env, bound_.data()); }

 private:
  // plan(description: Float64Array) -> [slot, Promise<[status, workBytes]>]
  Napi::Value plan(const Napi::CallbackInfo& info);
  // exec(block: Float64Array) -> status
  Napi::Value exec(const Napi::CallbackInfo& info);
  // bind(block: Float64Array) -> exec(): status, for the block the Fft writes each call into
  // (see BlasObject::bind).
  Napi::Value bindBlock(const Napi::CallbackInfo& info);
  int run(Napi::Env env, const double* block);
  // destroyPlan(slot): on a worker thread; the slot is reused.
  Napi::Value destroyPlan(const Napi::CallbackInfo& info);
  void closeHandles() override;

  // A plan, shared with the worker that makes it.
  struct Plan {
    cufft::Plan handle = 0;
    bool made = false;
    int type = 0;  // cufftType
    // What the plan was last set to, so that calls on the same stream set nothing again.
    cu::Stream stream = nullptr;
    cu::DevicePtr workArea = ~cu::DevicePtr{0};
  };
  std::vector<std::shared_ptr<Plan>> plans_;  // by slot; null for a free slot
  BoundBlock bound_;
};

}  // namespace rxcuda
