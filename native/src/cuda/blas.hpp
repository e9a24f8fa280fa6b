// cuBLAS on a CUDA device: one handle per device and environment (one per thread: a Node.js
// environment runs on one), set to each call's stream, with the workspace the call brings (the
// stream's, from the stream-ordered pool; a graph's own under capture). The handle is made off
// the main thread (open()); it is destroyed with this object, when it is collected or when its
// environment is torn down.
#pragma once
#include <napi.h>

#include <memory>

#include "../runtime/bound-block.hpp"
#include "../driver/cublas.hpp"
#include "device.hpp"
#include "library-graph.hpp"

namespace rxcuda {

class BlasObject : public Napi::ObjectWrap<BlasObject>, public LibraryCalls {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit BlasObject(const Napi::CallbackInfo& info);  // new CudaBlas(device)
  ~BlasObject() override { close(); }

  int enqueue(cu::Stream stream, const double* block, cu::DevicePtr workspace, size_t bytes) override;
  void forget() override { lastStream_ = nullptr; }
  int runBound(Napi::Env env) { return run(env, bound_.data()); }

 private:
  void closeHandles() override;
  // open() -> Promise<[status]>: makes the handle on a worker thread.
  Napi::Value open(const Napi::CallbackInfo& info);
  // gemm(block: Float64Array) -> status: the GEMM the block describes, on its stream.
  Napi::Value gemm(const Napi::CallbackInfo& info);
  // bind(block: Float64Array) -> gemm(): status, for the block the Blas writes each call into:
  // the call's one Node-API call, with no argument to unpack (as a kernel's bound launch).
  Napi::Value bindBlock(const Napi::CallbackInfo& info);
  int run(Napi::Env env, const double* block);

  // The handle, shared with the worker that makes it, so that either may outlive the other.
  struct Handle {
    cublas::Handle handle = nullptr;
  };
  std::shared_ptr<Handle> handle_ = std::make_shared<Handle>();
  BoundBlock bound_;
  // What the handle was last set to, so that a call on the same stream sets nothing again.
  cu::Stream lastStream_ = nullptr;
  cu::DevicePtr lastWorkspace_ = 0;
  size_t lastBytes_ = 0;
};

}  // namespace rxcuda
