#include "kernel.hpp"

#include <cstring>

#include "module.hpp"

namespace rxcuda {

void KernelObject::define(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(
      env, "Kernel",
      {
          InstanceMethod<&KernelObject::handle>("handle"),
          InstanceMethod<&KernelObject::paramInfo>("paramInfo"),
          InstanceMethod<&KernelObject::attributes>("attributes"),
          InstanceMethod<&KernelObject::setAttribute>("setAttribute"),
          InstanceMethod<&KernelObject::occupancy>("occupancy"),
          InstanceMethod<&KernelObject::suggestBlockSize>("suggestBlockSize"),
          InstanceMethod<&KernelObject::bind>("bind"),
      });
  exports["Kernel"] = cls;
}

KernelObject::KernelObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<KernelObject>(info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = addon.driver(env);
  auto* module = ModuleObject::Unwrap(info[0].As<Napi::Object>());
  module_ = Napi::Persistent(info[0].As<Napi::Object>());
  ctx_ = module->context();
  addon.makeCurrent(env, ctx_);
  std::string name = info[1].As<Napi::String>();
  addon.check(env, cu::call(d.cuModuleGetFunction, &fn_, module->module(), name.c_str()),
              "cuModuleGetFunction");
  addon_ = &addon;
}

Napi::Value KernelObject::handle(const Napi::CallbackInfo& info) {
  return Napi::BigInt::New(info.Env(), static_cast<uint64_t>(reinterpret_cast<uintptr_t>(fn_)));
}

// [{ offset, size }] per parameter, or null where the driver cannot say (before CUDA 12.4).
Napi::Value KernelObject::paramInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const cu::Driver& d = cu::driver();
  if (!d.cuFuncGetParamInfo) return env.Null();
  auto out = Napi::Array::New(env);
  for (size_t i = 0;; i++) {
    size_t offset = 0, size = 0;
    cu::Result r = d.cuFuncGetParamInfo(fn_, i, &offset, &size);
    if (r == cu::kErrorInvalidValue) break;  // past the last parameter
    if (r != cu::kSuccess) return env.Null();
    auto entry = Napi::Object::New(env);
    entry["offset"] = Napi::Number::New(env, static_cast<double>(offset));
    entry["size"] = Napi::Number::New(env, static_cast<double>(size));
    out[static_cast<uint32_t>(i)] = entry;
  }
  return out;
}

Napi::Value KernelObject::attributes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  static const std::pair<const char*, int> names[] = {
      {"maxThreadsPerBlock", cu::kFuncMaxThreadsPerBlock},
      {"sharedSizeBytes", cu::kFuncSharedSizeBytes},
      {"constSizeBytes", cu::kFuncConstSizeBytes},
      {"localSizeBytes", cu::kFuncLocalSizeBytes},
      {"numRegs", cu::kFuncNumRegs},
      {"ptxVersion", cu::kFuncPtxVersion},
      {"binaryVersion", cu::kFuncBinaryVersion},
      {"maxDynamicSharedSizeBytes", cu::kFuncMaxDynamicSharedSizeBytes},
  };
  auto out = Napi::Object::New(env);
  for (const auto& [key, attr] : names) {
    int value = 0;
    addon.check(env, cu::call(cu::driver().cuFuncGetAttribute, &value, attr, fn_),
                "cuFuncGetAttribute");
    out[key] = Napi::Number::New(env, value);
  }
  return out;
}

Napi::Value KernelObject::setAttribute(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, ctx_);
  addon.check(env,
              cu::call(cu::driver().cuFuncSetAttribute, fn_, info[0].As<Napi::Number>().Int32Value(),
                       info[1].As<Napi::Number>().Int32Value()),
              "cuFuncSetAttribute");
  return env.Undefined();
}

// occupancy(blockSize, sharedMem): active blocks per multiprocessor.
Napi::Value KernelObject::occupancy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, ctx_);
  int blocks = 0;
  addon.check(env,
              cu::call(cu::driver().cuOccupancyMaxActiveBlocksPerMultiprocessor, &blocks, fn_,
                       info[0].As<Napi::Number>().Int32Value(),
                       static_cast<size_t>(info[1].As<Napi::Number>().Int64Value())),
              "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return Napi::Number::New(env, blocks);
}

// suggestBlockSize(sharedMem, blockLimit): { minGridSize, blockSize } for full occupancy.
Napi::Value KernelObject::suggestBlockSize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, ctx_);
  int minGrid = 0, block = 0;
  addon.check(env,
              cu::call(cu::driver().cuOccupancyMaxPotentialBlockSize, &minGrid, &block, fn_,
                       static_cast<void*>(nullptr),
                       static_cast<size_t>(info[0].As<Napi::Number>().Int64Value()),
                       info[1].As<Napi::Number>().Int32Value()),
              "cuOccupancyMaxPotentialBlockSize");
  auto out = Napi::Object::New(env);
  out["minGridSize"] = Napi::Number::New(env, minGrid);
  out["blockSize"] = Napi::Number::New(env, block);
  return out;
}

// bind(block: ArrayBuffer, offsets: Uint32Array) -> launch(): once per kernel, from its
// signature. The returned function launches with whatever the block holds.
Napi::Value KernelObject::bind(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto block = info[0].As<Napi::ArrayBuffer>();
  auto offsets = info[1].As<Napi::Uint32Array>();
  block_ = Napi::Persistent(block);
  data_ = static_cast<uint8_t*>(block.Data());
  offsets_.assign(offsets.Data(), offsets.Data() + offsets.ElementLength());
  argBytes_ = block.ByteLength() > kArgsOffset ? block.ByteLength() - kArgsOffset : 0;
  napi_value fn = nullptr;
  NAPI_THROW_IF_FAILED(env, napi_create_function(env, "launch", NAPI_AUTO_LENGTH, &KernelObject::launch, this, &fn),
                       Napi::Value());
  return Napi::Value(env, fn);
}

cu::KernelNodeParams KernelObject::nodeParams(const uint8_t* block, std::vector<void*>& params) const {
  uint32_t h[kLaunchHeaderWords];
  std::memcpy(h, block, sizeof h);
  params.resize(offsets_.size());
  for (size_t i = 0; i < offsets_.size(); i++) params[i] = const_cast<uint8_t*>(block) + kArgsOffset + offsets_[i];
  return cu::KernelNodeParams{fn_,       h[kGridX],     h[kGridY], h[kGridZ], h[kBlockX], h[kBlockY],
                              h[kBlockZ], h[kSharedMem], params.empty() ? nullptr : params.data(),
                              nullptr,   nullptr,       nullptr};
}

// A launch on a stream given to a device thread is appended to its queue: the header, the
// parameter offsets and the packed arguments copied, nothing else. Any other stream (a foreign
// one) is launched here, after the device threads' queued work.
napi_value KernelObject::launch(napi_env env, napi_callback_info info) {
  void* data = nullptr;
  napi_get_cb_info(env, info, nullptr, nullptr, nullptr, &data);
  auto* self = static_cast<KernelObject*>(data);
  Addon& addon = *self->addon_;
  const uint8_t* block = self->data_;
  uint64_t stream = 0;
  std::memcpy(&stream, block + kStreamOffset, sizeof stream);
  LaneState* lane = addon.submission ? addon.submission->laneOf(reinterpret_cast<cu::Stream>(stream)) : nullptr;
  if (lane) {
    self->appendLaunch(lane);
    return nullptr;
  }
  // C++ exceptions must not leave a plain Node-API callback: errors become pending JS exceptions.
  try {
    Napi::Env jsEnv(env);
    LaneState direct;
    direct.stream = reinterpret_cast<cu::Stream>(stream);
    direct.ctx = self->ctx_;
    std::vector<uint8_t> payload(self->launchBytes());
    self->writeLaunch(payload.data());
    const char* call = "";
    cu::Result r = addon.submitNow(jsEnv, Op::Launch, direct, payload.data(), payload.size(), call);
    if (r != cu::kSuccess) addon.throwCuda(jsEnv, r, call);
  } catch (const Napi::Error& error) {
    error.ThrowAsJavaScriptException();
  }
  return nullptr;
}

void KernelObject::writeLaunchFrom(const uint8_t* block, uint8_t* at) const {
  writeLaunchPayload(at, fn_, block, offsets_, block + kArgsOffset, argBytes_);
}

void KernelObject::appendLaunch(LaneState* lane) const {
  uint8_t* at = lane->thread->begin(Op::Launch, lane, launchBytes());
  writeLaunch(at);
  lane->thread->commit(&addon_->current);
}

}  // namespace rxcuda
