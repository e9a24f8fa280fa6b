#include "memory.hpp"

#include "../runtime/addon.hpp"
#include "device.hpp"
#include "../runtime/off-thread.hpp"

namespace rxcuda {
namespace {

Napi::Value allocHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = addon.driver(env);
  addon.makeCurrent(env, DeviceObject::from(info[0])->context());
  size_t bytes = static_cast<size_t>(info[1].As<Napi::Number>().Int64Value());
  void* ptr = nullptr;
  addon.check(env, cu::call(d.cuMemHostAlloc, &ptr, bytes, cu::kMemHostAllocPortable),
              "cuMemHostAlloc");
  try {
    auto out = Napi::Object::New(env);
    out["ptr"] = Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(ptr)));
    // No finalizer: the TypeScript owner frees it explicitly, after the work using it completed.
    // Node refuses buffers over its limit (4 GiB on Node 20): then nobody owns it, so free it here,
    // off the main thread as every pinned free.
    out["buffer"] = Napi::ArrayBuffer::New(env, ptr, bytes);
    return out;
  } catch (...) {
    OffThread::detach(env, DeviceObject::from(info[0])->context(), "cuMemFreeHost",
                      [ptr](uint64_t&) { return cu::call(cu::driver().cuMemFreeHost, ptr); });
    throw;
  }
}

// cuMemFreeHost waits for the whole device: the free runs on a worker thread, and its failure (a
// broken context) leaves the memory to the context.
Napi::Value freeHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto* ptr = reinterpret_cast<void*>(toU64(info[1]));
  OffThread::detach(env, DeviceObject::from(info[0])->context(), "cuMemFreeHost",
                    [ptr](uint64_t&) { return cu::call(cu::driver().cuMemFreeHost, ptr); });
  return env.Undefined();
}


Napi::Value registerHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = addon.driver(env);
  addon.makeCurrent(env, DeviceObject::from(info[0])->context());
  auto* ptr = reinterpret_cast<void*>(toU64(info[1]));
  size_t bytes = static_cast<size_t>(info[2].As<Napi::Number>().Int64Value());
  addon.check(env, cu::call(d.cuMemHostRegister, ptr, bytes, cu::kMemHostRegisterPortable),
              "cuMemHostRegister");
  return env.Undefined();
}

// As a pinned free, the unregistration may wait for the device: it runs on a worker thread.
Napi::Value unregisterHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto* ptr = reinterpret_cast<void*>(toU64(info[1]));
  OffThread::detach(env, DeviceObject::from(info[0])->context(), "cuMemHostUnregister",
                    [ptr](uint64_t&) { return cu::call(cu::driver().cuMemHostUnregister, ptr); });
  return env.Undefined();
}

}  // namespace

void defineMemory(Napi::Env env, Napi::Object exports) {
  exports["allocHost"] = Napi::Function::New(env, allocHost, "allocHost");
  exports["freeHost"] = Napi::Function::New(env, freeHost, "freeHost");
  exports["registerHost"] = Napi::Function::New(env, registerHost, "registerHost");
  exports["unregisterHost"] = Napi::Function::New(env, unregisterHost, "unregisterHost");
}

}  // namespace rxcuda
