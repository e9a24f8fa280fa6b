#include "program.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "../runtime/addon.hpp"
#include "../driver/nvrtc.hpp"

namespace rxcuda {
namespace {

// Plain data only: Execute() runs on a libuv worker thread and never touches Napi.
struct CompileJob {
  std::string source, name;
  std::vector<std::string> options, expressions;
  int code = 0;
  std::string failure, log, ptx;
  std::vector<char> cubin;
  std::vector<std::string> lowered;

  bool step(nvrtc::Result r, const char* call) {
    if (r == 0) return true;
    code = r;
    const char* why = nvrtc::nvrtc().nvrtcGetErrorString(r);
    failure = std::string(call) + " failed: " + (why ? why : "unknown NVRTC error");
    return false;
  }

  void run() {
    const nvrtc::Nvrtc& n = nvrtc::nvrtc();
    nvrtc::Program prog = nullptr;
    if (!step(n.nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr),
              "nvrtcCreateProgram"))
      return;
    compile(n, prog);
    n.nvrtcDestroyProgram(&prog);
  }

  void compile(const nvrtc::Nvrtc& n, nvrtc::Program prog) {
    for (const auto& e : expressions)
      if (!step(n.nvrtcAddNameExpression(prog, e.c_str()), "nvrtcAddNameExpression")) return;
    std::vector<const char*> argv;
    for (const auto& o : options) argv.push_back(o.c_str());
    nvrtc::Result compiled =
        n.nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
    size_t size = 0;
    if (n.nvrtcGetProgramLogSize(prog, &size) == 0 && size > 1) {
      log.resize(size);
      n.nvrtcGetProgramLog(prog, log.data());
      log.resize(size - 1);
    }
    if (!step(compiled, "nvrtcCompileProgram")) return;
    // A real architecture (sm_XX) yields a cubin; a virtual one (compute_XX) only PTX.
    if (n.nvrtcGetCUBINSize(prog, &size) == 0 && size > 0) {
      cubin.resize(size);
      if (!step(n.nvrtcGetCUBIN(prog, cubin.data()), "nvrtcGetCUBIN")) return;
    }
    if (n.nvrtcGetPTXSize(prog, &size) == 0 && size > 1) {
      ptx.resize(size);
      if (!step(n.nvrtcGetPTX(prog, ptx.data()), "nvrtcGetPTX")) return;
      ptx.resize(size - 1);
    }
    for (const auto& e : expressions) {
      const char* low = nullptr;
      if (!step(n.nvrtcGetLoweredName(prog, e.c_str(), &low), "nvrtcGetLoweredName")) return;
      lowered.emplace_back(low);
    }
  }
};

class CompileWorker : public Napi::AsyncWorker {
 public:
  CompileWorker(Napi::Env env, CompileJob job)
      : Napi::AsyncWorker(env, "rxcuda:compile"), job_(std::move(job)), deferred_(env) {}
  Napi::Promise promise() { return deferred_.Promise(); }

  void Execute() override { job_.run(); }

  void OnOK() override {
    Napi::Env env = Env();
    Addon& addon = Addon::of(env);
    if (!job_.failure.empty()) {
      deferred_.Reject(addon.nvrtcError.New({Napi::Number::New(env, job_.code),
                                             Napi::String::New(env, job_.failure),
                                             Napi::String::New(env, job_.log)}));
      return;
    }
    auto out = Napi::Object::New(env);
    out["ptx"] = Napi::String::New(env, job_.ptx);
    out["log"] = Napi::String::New(env, job_.log);
    if (job_.cubin.empty()) {
      out["cubin"] = env.Null();
    } else {
      auto bytes = Napi::Uint8Array::New(env, job_.cubin.size());
      std::copy(job_.cubin.begin(), job_.cubin.end(), bytes.Data());
      out["cubin"] = bytes;
    }
    auto lowered = Napi::Array::New(env, job_.lowered.size());
    for (uint32_t i = 0; i < job_.lowered.size(); i++) lowered[i] = job_.lowered[i];
    out["lowered"] = lowered;
    deferred_.Resolve(out);
  }

 private:
  CompileJob job_;
  Napi::Promise::Deferred deferred_;
};

std::vector<std::string> strings(const Napi::Value& v) {
  std::vector<std::string> out;
  auto array = v.As<Napi::Array>();
  for (uint32_t i = 0; i < array.Length(); i++) out.push_back(array.Get(i).As<Napi::String>());
  return out;
}

Napi::Value compile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const nvrtc::Nvrtc& n = nvrtc::nvrtc();
  if (!n.problem.empty()) Addon::of(env).throwNvrtc(env, -1, n.problem, "");
  CompileJob job;
  job.source = info[0].As<Napi::String>();
  job.name = info[1].As<Napi::String>();
  job.options = strings(info[2]);
  job.expressions = strings(info[3]);
  auto* worker = new CompileWorker(env, std::move(job));
  Napi::Promise promise = worker->promise();
  worker->Queue();
  return promise;
}

// Where libcudadevrt.a is looked for, in order: beside the NVRTC the addon loaded (the folder it
// was found in and the one it really lives in, and their ../lib64 and ../lib: a toolkit's
// lib64 is often a link to targets/<arch>/lib), then the toolkit's usual places.
std::vector<std::string> deviceRuntimePlaces() {
  namespace fs = std::filesystem;
  std::vector<fs::path> dirs;
  if (const std::string& loaded = nvrtc::nvrtc().path; !loaded.empty()) {
    std::vector<fs::path> beside;
    if (fs::path dir = fs::path(loaded).parent_path(); dir.is_absolute()) beside.push_back(dir);
    std::error_code ec;
    if (fs::path real = fs::canonical(loaded, ec); !ec) beside.push_back(real.parent_path());
    for (const fs::path& dir : std::vector<fs::path>(beside))
      for (const char* up : {"../lib64", "../lib"}) beside.push_back(dir / up);
    dirs.insert(dirs.end(), beside.begin(), beside.end());
  }
  if (const char* cudaPath = std::getenv("CUDA_PATH"); cudaPath && *cudaPath)
    dirs.push_back(fs::path(cudaPath) / "lib64");
  for (const char* dir : {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                          "/usr/local/cuda/targets/sbsa-linux/lib"})
    dirs.emplace_back(dir);
  std::vector<std::string> out;
  for (const fs::path& dir : dirs) {
    std::string place = dir.lexically_normal().string();
    if (place.size() > 1 && place.back() == '/') place.pop_back();
    if (!place.empty() && std::find(out.begin(), out.end(), place) == out.end()) out.push_back(place);
  }
  return out;
}

// deviceRuntimePlaces() -> string[]
Napi::Value listDeviceRuntimePlaces(const Napi::CallbackInfo& info) {
  std::vector<std::string> places = deviceRuntimePlaces();
  auto out = Napi::Array::New(info.Env(), places.size());
  for (uint32_t i = 0; i < places.size(); i++) out[i] = places[i];
  return out;
}

// deviceRuntimeLibrary() -> string | null: libcudadevrt.a in the first place that has it.
Napi::Value deviceRuntimeLibrary(const Napi::CallbackInfo& info) {
  for (const std::string& place : deviceRuntimePlaces()) {
    std::string file = place + "/libcudadevrt.a";
    std::error_code ec;
    if (std::filesystem::is_regular_file(file, ec)) return Napi::String::New(info.Env(), file);
  }
  return info.Env().Null();
}

}  // namespace

void defineProgram(Napi::Env env, Napi::Object exports) {
  exports["compile"] = Napi::Function::New(env, compile, "compile");
  exports["deviceRuntimeLibrary"] =
      Napi::Function::New(env, deviceRuntimeLibrary, "deviceRuntimeLibrary");
  exports["deviceRuntimePlaces"] =
      Napi::Function::New(env, listDeviceRuntimePlaces, "deviceRuntimePlaces");
}

}  // namespace rxcuda
