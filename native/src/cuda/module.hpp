// A loaded module (cubin, fatbin or PTX image) on a device's primary context. The driver's load
// and unload wait for the whole device, so both run on a worker thread (off-thread.hpp): load()
// gives a handle that new Module(device, handle) wraps; unload() is only called by TypeScript
// once the launches enqueued from the module have finished, never by the garbage collector; one
// never unloaded goes with the context.
#pragma once
#include <napi.h>

#include "../runtime/addon.hpp"
#include "device.hpp"

namespace rxcuda {

class ModuleObject : public Napi::ObjectWrap<ModuleObject> {
 public:
  // Defines Module and loadModule(device, image: Uint8Array, deviceRuntime?: string)
  // -> Promise<bigint handle>; with deviceRuntime (libcudadevrt.a's path), the image is linked
  // with it by the driver's linker first, and a failed link's CudaError carries the linker's log.
  static void define(Napi::Env env, Napi::Object exports);
  explicit ModuleObject(const Napi::CallbackInfo& info);  // new Module(device, handle: bigint)
  cu::Module module() const { return module_; }
  cu::Context context() const { return device_.ctx; }

 private:
  Napi::Value unload(const Napi::CallbackInfo& info);

  cu::Module module_ = nullptr;
  DeviceRef device_;
};

}  // namespace rxcuda
