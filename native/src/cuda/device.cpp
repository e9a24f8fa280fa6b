#include "device.hpp"

namespace rxcuda {

void DeviceRef::bind(Napi::Env env, const Napi::Value& value) {
  ctx = DeviceObject::from(value)->context();
  device = Napi::Persistent(value.As<Napi::Object>());
  Addon::of(env).makeCurrent(env, ctx);
}

void DeviceObject::define(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(env, "Device",
                                   {
                                       InstanceMethod<&DeviceObject::properties>("properties"),
                                       InstanceMethod<&DeviceObject::memoryInfo>("memoryInfo"),
                                       InstanceMethod<&DeviceObject::enablePeerAccess>("enablePeerAccess"),
                                   });
  exports["Device"] = cls;
}

DeviceObject::DeviceObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<DeviceObject>(info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = addon.driver(env);
  int ordinal = info[0].As<Napi::Number>().Int32Value();
  addon_ = &addon;
  addon.check(env, cu::call(d.cuDeviceGet, &dev_, ordinal), "cuDeviceGet");
  addon.check(env, cu::call(d.cuDevicePrimaryCtxRetain, &ctx_, dev_), "cuDevicePrimaryCtxRetain");
}

DeviceObject::~DeviceObject() {
  if (!ctx_) return;
  addon_->drain();  // the device threads' queued work still names the context
  cu::call(cu::driver().cuDevicePrimaryCtxRelease, dev_);
}

Napi::Value DeviceObject::properties(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = cu::driver();
  char name[256] = {0};
  addon.check(env, cu::call(d.cuDeviceGetName, name, static_cast<int>(sizeof name) - 1, dev_),
              "cuDeviceGetName");
  size_t total = 0;
  addon.check(env, cu::call(d.cuDeviceTotalMem, &total, dev_), "cuDeviceTotalMem");
  auto out = Napi::Object::New(env);
  out["name"] = Napi::String::New(env, name);
  out["totalMemory"] = Napi::Number::New(env, static_cast<double>(total));
  static const std::pair<const char*, int> attributes[] = {
      {"major", cu::kAttrComputeCapabilityMajor},
      {"minor", cu::kAttrComputeCapabilityMinor},
      {"multiprocessors", cu::kAttrMultiprocessorCount},
      {"maxThreadsPerBlock", cu::kAttrMaxThreadsPerBlock},
      {"maxBlockX", cu::kAttrMaxBlockDimX},
      {"maxBlockY", cu::kAttrMaxBlockDimY},
      {"maxBlockZ", cu::kAttrMaxBlockDimZ},
      {"maxGridX", cu::kAttrMaxGridDimX},
      {"maxGridY", cu::kAttrMaxGridDimY},
      {"maxGridZ", cu::kAttrMaxGridDimZ},
      {"sharedMemoryPerBlock", cu::kAttrMaxSharedMemoryPerBlock},
      {"sharedMemoryPerBlockOptin", cu::kAttrMaxSharedMemoryPerBlockOptin},
      {"warpSize", cu::kAttrWarpSize},
      {"cooperativeLaunch", cu::kAttrCooperativeLaunch},
      {"clusterLaunch", cu::kAttrClusterLaunch},
      {"memoryPools", cu::kAttrMemoryPoolsSupported},
  };
  for (const auto& [key, attr] : attributes) {
    int value = 0;
    addon.check(env, cu::call(d.cuDeviceGetAttribute, &value, attr, dev_), "cuDeviceGetAttribute");
    out[key] = Napi::Number::New(env, value);
  }
  return out;
}

Napi::Value DeviceObject::memoryInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, ctx_);
  size_t free = 0, total = 0;
  addon.check(env, cu::call(cu::driver().cuMemGetInfo, &free, &total), "cuMemGetInfo");
  auto out = Napi::Object::New(env);
  out["free"] = Napi::Number::New(env, static_cast<double>(free));
  out["total"] = Napi::Number::New(env, static_cast<double>(total));
  return out;
}

// enablePeerAccess(peer) -> whether this device now reads and writes the peer's memory directly:
// its context maps the peer's allocations (cuCtxEnablePeerAccess) and the peer's stream-ordered
// pool (cuMemPoolSetAccess, which peer access alone does not cover). False where the hardware
// cannot (cuDeviceCanAccessPeer): copies between the two are then staged through host memory.
Napi::Value DeviceObject::enablePeerAccess(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = addon.driver(env);
  DeviceObject* peer = from(info[0]);
  int can = 0;
  addon.check(env, cu::call(d.cuDeviceCanAccessPeer, &can, dev_, peer->dev_), "cuDeviceCanAccessPeer");
  if (!can) return Napi::Boolean::New(env, false);
  addon.makeCurrent(env, ctx_);
  cu::Result r = cu::call(d.cuCtxEnablePeerAccess, peer->ctx_, 0u);
  if (r != cu::kErrorPeerAccessAlreadyEnabled) addon.check(env, r, "cuCtxEnablePeerAccess");
  cu::MemoryPool pool = nullptr;
  addon.check(env, cu::call(d.cuDeviceGetDefaultMemPool, &pool, peer->dev_), "cuDeviceGetDefaultMemPool");
  cu::MemAccessDesc access{{cu::kMemLocationTypeDevice, dev_}, cu::kMemAccessFlagsProtReadWrite};
  addon.check(env, cu::call(d.cuMemPoolSetAccess, pool, &access, size_t{1}), "cuMemPoolSetAccess");
  return Napi::Boolean::New(env, true);
}

}  // namespace rxcuda
