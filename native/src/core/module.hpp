// A loaded module (cubin, fatbin or PTX image) on a device's primary context. Only unload()
// unloads it: cuModuleUnload waits for the whole device, so TypeScript calls it when no host step
// holds a stream (src/core/held-steps.ts), never the garbage collector; one never unloaded goes
// with the context.
#pragma once
#include <napi.h>

#include "../addon.hpp"
#include "device.hpp"

namespace rxcuda {

class ModuleObject : public Napi::ObjectWrap<ModuleObject> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit ModuleObject(const Napi::CallbackInfo& info);  // new Module(device, image: Uint8Array)
  cu::Module module() const { return module_; }
  cu::Context context() const { return device_.ctx; }

 private:
  Napi::Value unload(const Napi::CallbackInfo& info);

  cu::Module module_ = nullptr;
  DeviceRef device_;
};

}  // namespace rxcuda
