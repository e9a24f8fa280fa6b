#include "module.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "device.hpp"
#include "../runtime/off-thread.hpp"

namespace rxcuda {
namespace {

// The driver's linker writes its errors here; what does not fit is cut.
constexpr size_t kLinkLogBytes = 64 * 1024;

// `image` (a cubin, else NUL-terminated PTX) linked with the device runtime library at `library`
// by the driver's linker, and the linked cubin loaded: relocatable code whose calls into the
// device runtime (cudaGraphSetConditional) only the library resolves. On failure, `failure`
// names the step and carries the linker's log.
cu::Result linkAndLoad(const std::vector<uint8_t>& image, const std::string& library,
                       cu::Module& module, OffThread::Failure& failure) {
  const cu::Driver& d = cu::driver();
  std::vector<char> log(kLinkLogBytes, '\0');
  // Both arrays live until cuLinkDestroy: the driver writes the log's size back into `values`.
  int options[] = {cu::kJitErrorLogBuffer, cu::kJitErrorLogBufferSizeBytes};
  void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(log.size()))};
  cu::LinkState link = nullptr;
  failure.call = "cuLinkCreate";
  cu::Result r = cu::call(d.cuLinkCreate, 2u, options, values, &link);
  if (r != cu::kSuccess) return r;
  static constexpr uint8_t kElf[] = {0x7f, 'E', 'L', 'F'};
  bool cubin = image.size() >= 4 && std::equal(kElf, kElf + 4, image.begin());
  failure.call = "cuLinkAddData";
  r = cu::call(d.cuLinkAddData, link, cubin ? cu::kJitInputCubin : cu::kJitInputPtx,
               const_cast<void*>(static_cast<const void*>(image.data())), image.size(),
               "program", 0u, nullptr, nullptr);
  if (r == cu::kSuccess) {
    failure.call = "cuLinkAddFile";
    r = cu::call(d.cuLinkAddFile, link, cu::kJitInputLibrary, library.c_str(), 0u, nullptr, nullptr);
  }
  void* linked = nullptr;
  size_t size = 0;
  if (r == cu::kSuccess) {
    failure.call = "cuLinkComplete";
    r = cu::call(d.cuLinkComplete, link, &linked, &size);
  }
  if (r == cu::kSuccess) {
    failure.call = "cuModuleLoadData";
    r = cu::call(d.cuModuleLoadData, &module, static_cast<const void*>(linked));
  }
  if (r != cu::kSuccess) {
    std::string said(log.data(), strnlen(log.data(), log.size()));
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
    failure.detail = "linking the program with the device runtime " + library +
                     (said.empty() ? std::string(" (the linker said nothing)") : ": " + said);
  }
  cu::call(d.cuLinkDestroy, link);  // after the load: it owns the linked cubin
  return r;
}

// loadModule(device, image, deviceRuntime?: string): the image is copied, so the caller's bytes
// may change meanwhile; with the path of libcudadevrt.a, it is linked with it first.
Napi::Value loadModule(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon::of(env).driver(env);
  cu::Context ctx = DeviceObject::from(info[0])->context();
  auto bytes = info[1].As<Napi::Uint8Array>();
  auto image = std::make_shared<std::vector<uint8_t>>(bytes.Data(), bytes.Data() + bytes.ByteLength());
  if (info.Length() > 2 && info[2].IsString()) {
    std::string library = info[2].As<Napi::String>();
    return OffThread::run(env, ctx, "cuModuleLoadData",
                          [image, library](uint64_t& handle, OffThread::Failure& failure) {
                            cu::Module module = nullptr;
                            cu::Result r = linkAndLoad(*image, library, module, failure);
                            handle = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(module));
                            return r;
                          });
  }
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
