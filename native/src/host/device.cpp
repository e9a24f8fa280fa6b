#include "device.hpp"

#include <sys/sysinfo.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "../runtime/addon.hpp"

namespace rxcuda::host {

void HostDevice::define(Napi::Env env, Napi::Object exports) {
  exports["HostDevice"] = DefineClass(env, "HostDevice",
                                      {
                                          InstanceMethod<&HostDevice::properties>("properties"),
                                          InstanceMethod<&HostDevice::memoryInfo>("memoryInfo"),
                                          InstanceMethod<&HostDevice::enablePeerAccess>("enablePeerAccess"),
                                          InstanceMethod<&HostDevice::poison>("poison"),
                                      });
}

HostDevice::HostDevice(const Napi::CallbackInfo& info) : Napi::ObjectWrap<HostDevice>(info) {}

// The limits a CUDA device of compute capability 9.0 has, so that configurations written for a
// GPU are checked the same way on the host.
Napi::Value HostDevice::properties(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto out = Napi::Object::New(env);
  struct sysinfo si {};
  sysinfo(&si);
  out["name"] = Napi::String::New(env, "host (CPU reference backend)");
  out["totalMemory"] = Napi::Number::New(env, static_cast<double>(si.totalram) * si.mem_unit);
  const std::pair<const char*, double> values[] = {
      {"major", 0}, {"minor", 0}, {"multiprocessors", std::thread::hardware_concurrency()},
      {"maxThreadsPerBlock", 1024}, {"maxBlockX", 1024}, {"maxBlockY", 1024}, {"maxBlockZ", 64},
      {"maxGridX", 2147483647}, {"maxGridY", 65535}, {"maxGridZ", 65535},
      {"sharedMemoryPerBlock", 49152}, {"sharedMemoryPerBlockOptin", 232448}, {"warpSize", 32},
      {"cooperativeLaunch", 0}, {"clusterLaunch", 0}, {"memoryPools", 1},
  };
  for (const auto& [key, value] : values) out[key] = Napi::Number::New(env, value);
  return out;
}

Napi::Value HostDevice::memoryInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  struct sysinfo si {};
  sysinfo(&si);
  auto out = Napi::Object::New(env);
  out["free"] = Napi::Number::New(env, static_cast<double>(si.freeram) * si.mem_unit);
  out["total"] = Napi::Number::New(env, static_cast<double>(si.totalram) * si.mem_unit);
  return out;
}

// poison(code): the device broke with the sticky error `code` (a CPU kernel's); the first stays.
Napi::Value HostDevice::poison(const Napi::CallbackInfo& info) {
  int32_t none = 0;
  fault_->compare_exchange_strong(none, info[0].As<Napi::Number>().Int32Value(), std::memory_order_acq_rel);
  return info.Env().Undefined();
}

// Host devices share one memory: each reads and writes the others' directly.
Napi::Value HostDevice::enablePeerAccess(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), true);
}

void throwOutOfMemory(Napi::Env env, const char* call, size_t bytes) {
  Addon::of(env).throwCuda(env, cu::kErrorOutOfMemory, call,
                           std::string(call) + " failed: CUDA_ERROR_OUT_OF_MEMORY (the host device could not allocate " +
                               std::to_string(bytes) + " bytes)");
}

namespace {

Napi::Value allocHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t bytes = static_cast<size_t>(info[1].As<Napi::Number>().Int64Value());
  void* ptr = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!ptr) throwOutOfMemory(env, "cuMemHostAlloc", bytes);
  try {
    auto out = Napi::Object::New(env);
    out["ptr"] = Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(ptr)));
    // Node refuses buffers over its limit (4 GiB on Node 20): the memory must not outlive that.
    out["buffer"] = Napi::ArrayBuffer::New(env, ptr, bytes);
    return out;
  } catch (...) {
    std::free(ptr);
    throw;
  }
}

// freeHost(device, ptr): as the CUDA backend's; the caller detached the memory's ArrayBuffer.
Napi::Value freeHost(const Napi::CallbackInfo& info) {
  std::free(reinterpret_cast<void*>(toU64(info[1])));
  return info.Env().Undefined();
}

// A view of host-device memory for CPU kernels; valid while the memory is (the caller keeps the
// allocation alive for as long as the view is used).
Napi::Value view(const Napi::CallbackInfo& info) {
  auto* ptr = reinterpret_cast<void*>(toU64(info[0]));
  size_t bytes = static_cast<size_t>(info[1].As<Napi::Number>().Int64Value());
  return Napi::ArrayBuffer::New(info.Env(), ptr, bytes);
}

}  // namespace

void defineHostMemory(Napi::Env env, Napi::Object exports) {
  exports["hostAllocHost"] = Napi::Function::New(env, allocHost, "hostAllocHost");
  exports["hostFreeHost"] = Napi::Function::New(env, freeHost, "hostFreeHost");
  exports["hostView"] = Napi::Function::New(env, view, "hostView");
}

}  // namespace rxcuda::host
