#include "module.hpp"

#include "device.hpp"

namespace rxcuda {

void ModuleObject::define(Napi::Env env, Napi::Object exports) {
  Napi::Function cls =
      DefineClass(env, "Module", {InstanceMethod<&ModuleObject::unload>("unload")});
  exports["Module"] = cls;
}

ModuleObject::ModuleObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ModuleObject>(info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = addon.driver(env);
  device_.bind(env, info[0]);
  auto image = info[1].As<Napi::Uint8Array>();
  addon.check(env, cu::call(d.cuModuleLoadData, &module_, static_cast<const void*>(image.Data())),
              "cuModuleLoadData");
}

Napi::Value ModuleObject::unload(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (module_) {
    Addon& addon = Addon::of(env);
    addon.use(env, device_.ctx);
    cu::Module m = module_;
    module_ = nullptr;
    addon.check(env, cu::call(cu::driver().cuModuleUnload, m), "cuModuleUnload");
  }
  return env.Undefined();
}

}  // namespace rxcuda
