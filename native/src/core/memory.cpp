#include "memory.hpp"

#include "../addon.hpp"
#include "device.hpp"

namespace rxcuda {
namespace {

Napi::Value allocHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = addon.driver(env);
  addon.use(env, DeviceObject::from(info[0])->context());
  size_t bytes = static_cast<size_t>(info[1].As<Napi::Number>().Int64Value());
  void* ptr = nullptr;
  addon.check(env, cu::call(d.cuMemHostAlloc, &ptr, bytes, cu::kMemHostAllocPortable),
              "cuMemHostAlloc");
  auto out = Napi::Object::New(env);
  out["ptr"] = Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(ptr)));
  // No finalizer: the TypeScript owner frees it explicitly, after the work using it completed.
  out["buffer"] = Napi::ArrayBuffer::New(env, ptr, bytes);
  return out;
}

// cuMemFreeHost waits for the whole device: TypeScript calls this only when no host step holds a
// stream (src/core/held-steps.ts).
Napi::Value freeHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.use(env, DeviceObject::from(info[0])->context());
  addon.check(env, cu::call(cu::driver().cuMemFreeHost, reinterpret_cast<void*>(toU64(info[1]))),
              "cuMemFreeHost");
  return env.Undefined();
}

}  // namespace

void defineMemory(Napi::Env env, Napi::Object exports) {
  exports["allocHost"] = Napi::Function::New(env, allocHost, "allocHost");
  exports["freeHost"] = Napi::Function::New(env, freeHost, "freeHost");
}

}  // namespace rxcuda
