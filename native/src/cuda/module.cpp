#include "module.hpp"

#include <memory>
#include <vector>

#include "device.hpp"
#include "../runtime/off-thread.hpp"

namespace rxcuda {
namespace {

// loadModule(device, image): the image is copied, so the caller's bytes may change meanwhile.
Napi::Value loadModule(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon::of(env).driver(env);
  cu::Context ctx = DeviceObject::from(info[0])->context();
  auto bytes = info[1].As<Napi::Uint8Array>();
  auto image = std::make_shared<std::vector<uint8_t>>(bytes.Data(), bytes.Data() + bytes.ByteLength());
  return OffThread::run(env, ctx, "cuModuleLoadData", [image](uint64_t& handle) {
    cu::Module module = nullptr;
    cu::Result r = cu::call(cu::driver().cuModuleLoadData, &module, static_cast<const void*>(image->data()));
    handle = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(module));
    return r;
  });
}

}  // namespace

void ModuleObject::define(Napi::Env env, Napi::Object exports) {
  Napi::Function cls =
      DefineClass(env, "Module", {InstanceMethod<&ModuleObject::unload>("unload")});
  exports["Module"] = cls;
  exports["loadModule"] = Napi::Function::New(env, loadModule, "loadModule");
}

ModuleObject::ModuleObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ModuleObject>(info) {
  device_.bind(info.Env(), info[0]);
  module_ = reinterpret_cast<cu::Module>(toU64(info[1]));
}

// unload(): queued on a worker thread at once; its failure (a broken context) leaves the module
// to the context.
Napi::Value ModuleObject::unload(const Napi::CallbackInfo& info) {
  if (module_) {
    cu::Module m = module_;
    module_ = nullptr;
    OffThread::detach(info.Env(), device_.ctx, "cuModuleUnload",
                      [m](uint64_t&) { return cu::call(cu::driver().cuModuleUnload, m); });
  }
  return info.Env().Undefined();
}

}  // namespace rxcuda
