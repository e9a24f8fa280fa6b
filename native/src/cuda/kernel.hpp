// A kernel of a loaded module and its launch fast path: TypeScript writes the launch header and
// the packed arguments into one preallocated block; launch() reads it and calls cuLaunchKernelEx.
#pragma once
#include <napi.h>

#include <vector>

#include "../runtime/addon.hpp"
#include "../runtime/launch-block.hpp"

namespace rxcuda {

class KernelObject : public Napi::ObjectWrap<KernelObject> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit KernelObject(const Napi::CallbackInfo& info);  // new Kernel(module, name)

  // A graph kernel node's parameters for a launch block laid out as bind()'s (header, then the
  // packed arguments): `params` receives the pointers into `block` that the driver copies from.
  cu::KernelNodeParams nodeParams(const uint8_t* block, std::vector<void*>& params) const;
  cu::Context context() const { return ctx_; }
  // The launch as a device thread's command: its payload's size, the payload written at `at`, and
  // the command appended to the queue of `lane`'s thread.
  size_t launchBytes() const { return launchPayloadBytes(offsets_.size(), argBytes_); }
  // The bound block's size: header and arguments.
  size_t blockBytes() const { return kArgsOffset + argBytes_; }
  void writeLaunch(uint8_t* at) const { writeLaunchFrom(data_, at); }
  // The same from a block laid out as bind()'s (a graph kernel node's).
  void writeLaunchFrom(const uint8_t* block, uint8_t* at) const;
  void appendLaunch(LaneState* lane) const;

 private:
  Napi::Value handle(const Napi::CallbackInfo& info);
  Napi::Value paramInfo(const Napi::CallbackInfo& info);
  Napi::Value attributes(const Napi::CallbackInfo& info);
  Napi::Value setAttribute(const Napi::CallbackInfo& info);
  Napi::Value occupancy(const Napi::CallbackInfo& info);
  Napi::Value suggestBlockSize(const Napi::CallbackInfo& info);
  Napi::Value bind(const Napi::CallbackInfo& info);
  // The launch itself, as a plain Node-API callback bound to this kernel: no unwrapping and no
  // argument handling on the hot path.
  static napi_value launch(napi_env env, napi_callback_info info);

  cu::Function fn_ = nullptr;
  cu::Context ctx_ = nullptr;
  Napi::ObjectReference module_;  // the module stays loaded while its kernels live
  Napi::Reference<Napi::ArrayBuffer> block_;
  uint8_t* data_ = nullptr;
  std::vector<uint32_t> offsets_;  // each parameter's offset after the header
  size_t argBytes_ = 0;            // the block's bytes after the header
  Addon* addon_ = nullptr;
};

}  // namespace rxcuda
