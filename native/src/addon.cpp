// The addon's entry: registers every class and function, and makes and ends each environment's
// Addon (runtime/addon.hpp). The native layers, lowest first, each including only its own folder
// and those below (test/layout/folders.test.ts checks): driver/ → runtime/ → host/ and cuda/,
// side by side → this file.
#include "runtime/addon.hpp"

#include <dlfcn.h>

#include <mutex>

#include "cuda/blas.hpp"
#include "cuda/device.hpp"
#include "cuda/event.hpp"
#include "cuda/graph-exec.hpp"
#include "cuda/graph.hpp"
#include "cuda/fft.hpp"
#include "cuda/kernel.hpp"
#include "cuda/library-graph.hpp"
#include "cuda/library-info.hpp"
#include "cuda/memory.hpp"
#include "cuda/module.hpp"
#include "cuda/program.hpp"
#include "cuda/stream.hpp"
#include "driver/nvrtc.hpp"
#include "host/device.hpp"
#include "host/event.hpp"
#include "host/libraries.hpp"
#include "host/pool.hpp"
#include "host/stream.hpp"
#include "runtime/launch-block.hpp"

namespace rxcuda {

// Host streams' work still runs after the environment has gone; the pool's threads then end.
Addon::~Addon() {
  if (hostPool) hostPool->close();
}

namespace {

// Driver facts for `rxcuda info` and for the errors TypeScript raises: never throws.
Napi::Value driverInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const cu::Driver& d = cu::driver();
  const nvrtc::Nvrtc& n = nvrtc::nvrtc();
  auto out = Napi::Object::New(env);
  out["available"] = Napi::Boolean::New(env, d.problem.empty());
  out["version"] = Napi::Number::New(env, d.version);
  out["problem"] = Napi::String::New(env, d.problem);
  out["code"] = Napi::Number::New(env, d.unavailable);
  out["codeName"] = Napi::String::New(env, d.problem.empty() ? "" : cu::errorName(d.unavailable));
  int count = 0;
  if (d.problem.empty()) cu::call(d.cuDeviceGetCount, &count);
  out["deviceCount"] = Napi::Number::New(env, count);
  auto nv = Napi::Object::New(env);
  nv["available"] = Napi::Boolean::New(env, n.problem.empty());
  nv["version"] = Napi::String::New(env, n.problem.empty() ? std::to_string(n.major) + "." +
                                                                 std::to_string(n.minor)
                                                           : "");
  nv["path"] = Napi::String::New(env, n.path);
  nv["problem"] = Napi::String::New(env, n.problem);
  out["nvrtc"] = nv;
  return out;
}

// init({ CudaError, NvrtcError, onCompletions, completionIds, completionStatuses }): TypeScript
// hands over its error classes, the function that receives drained completions and the two arrays
// they are handed over in.
Napi::Value init(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  auto options = info[0].As<Napi::Object>();
  addon.cudaError = Napi::Persistent(options.Get("CudaError").As<Napi::Function>());
  addon.nvrtcError = Napi::Persistent(options.Get("NvrtcError").As<Napi::Function>());
  if (!addon.completion)
    addon.completion = Completion::open(env, options.Get("onCompletions").As<Napi::Function>(),
                                        options.Get("completionIds").As<Napi::Uint32Array>(),
                                        options.Get("completionStatuses").As<Napi::Int32Array>());
  return env.Undefined();
}

// detachBuffer(buffer): empties every view of an ArrayBuffer over memory handed out here.
Napi::Value detachBuffer(const Napi::CallbackInfo& info) {
  auto buffer = info[0].As<Napi::ArrayBuffer>();
  if (!buffer.IsDetached()) buffer.Detach();
  return info.Env().Undefined();
}

Napi::Value describeError(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int code = info[0].As<Napi::Number>().Int32Value();
  auto out = Napi::Object::New(env);
  out["name"] = Napi::String::New(env, cu::errorName(code));
  out["message"] = Napi::String::New(env, cu::errorString(code));
  return out;
}

// Driver threads and host-stream workers may call into this library after the environment that
// loaded it is gone (a worker thread terminated with work pending). Node unloads an addon with
// its last environment, so the library pins itself for the life of the process.
void pinLibrary() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&pinLibrary), &info) && info.dli_fname)
      dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE);
  });
}

// completionCounts() -> { pending, records, roads }: this environment's records not drained yet,
// and the records and completion queues alive in the whole process (for tests).
Napi::Value completionCounts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Completion* queue = Addon::of(env).completion;
  Completion::Counts counts = Completion::counts();
  auto out = Napi::Object::New(env);
  out["pending"] = Napi::Number::New(env, queue ? queue->pending() : 0);
  out["records"] = Napi::Number::New(env, static_cast<double>(counts.records));
  out["roads"] = Napi::Number::New(env, static_cast<double>(counts.queues));
  return out;
}

// The launch block's layout (runtime/launch-block.hpp), frozen: TypeScript checks the constants it
// writes the block with against it when it loads the addon.
Napi::Object launchBlockLayout(Napi::Env env) {
  auto out = Napi::Object::New(env);
  out["headerBytes"] = Napi::Number::New(env, kArgsOffset);
  out["streamOffset"] = Napi::Number::New(env, kStreamOffset);
  out["configWords"] = Napi::Number::New(env, kLaunchHeaderWords);
  out["gridWord"] = Napi::Number::New(env, kGridX);
  out["blockWord"] = Napi::Number::New(env, kBlockX);
  out["sharedMemWord"] = Napi::Number::New(env, kSharedMem);
  out["flagsWord"] = Napi::Number::New(env, kFlags);
  out["clusterWord"] = Napi::Number::New(env, kClusterX);
  out["flagCooperative"] = Napi::Number::New(env, kFlagCooperative);
  out["flagCluster"] = Napi::Number::New(env, kFlagCluster);
  out.Freeze();
  return out;
}

// notify()'s flags (runtime/device-thread.hpp), frozen: TypeScript checks the flags it passes
// against them when it loads the addon.
Napi::Object notifyFlags(Napi::Env env) {
  auto out = Napi::Object::New(env);
  out["refuseCapture"] = Napi::Number::New(env, kNotifyRefuseCapture);
  out["offStream"] = Napi::Number::New(env, kNotifyOffStream);
  out.Freeze();
  return out;
}

Napi::Object initModule(Napi::Env env, Napi::Object exports) {
  pinLibrary();
  env.SetInstanceData(new Addon());
  exports["init"] = Napi::Function::New(env, init, "init");
  exports["driverInfo"] = Napi::Function::New(env, driverInfo, "driverInfo");
  exports["describeError"] = Napi::Function::New(env, describeError, "describeError");
  exports["detachBuffer"] = Napi::Function::New(env, detachBuffer, "detachBuffer");
  exports["completionCounts"] = Napi::Function::New(env, completionCounts, "completionCounts");
  exports["launchBlockLayout"] = launchBlockLayout(env);
  exports["notifyFlags"] = notifyFlags(env);
  DeviceObject::define(env, exports);
  StreamObject::define(env, exports);
  EventObject::define(env, exports);
  ModuleObject::define(env, exports);
  KernelObject::define(env, exports);
  GraphObject::define(env, exports);
  GraphExecObject::define(env, exports);
  defineMemory(env, exports);
  defineHostCopy(env, exports);
  defineProgram(env, exports);
  defineSpinner(env, exports);
  defineSubmission(env, exports);
  host::HostDevice::define(env, exports);
  host::HostStream::define(env, exports);
  host::HostEvent::define(env, exports);
  host::defineHostMemory(env, exports);
  BlasObject::define(env, exports);
  FftObject::define(env, exports);
  defineLibraryGraph(env, exports);
  defineLibraryInfo(env, exports);
  host::HostBlas::define(env, exports);
  host::HostFft::define(env, exports);
  return exports;
}

}  // namespace
}  // namespace rxcuda

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  return rxcuda::initModule(env, exports);
}
NODE_API_MODULE(rxcuda, Init)
