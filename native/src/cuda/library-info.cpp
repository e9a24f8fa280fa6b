#include "library-info.hpp"

#include <string>

#include "../driver/cublas.hpp"
#include "../driver/cufft.hpp"
#include "../driver/library-blocks.hpp"

namespace rxcuda {
namespace {

Napi::Object describe(Napi::Env env, const lib::Found& found, const std::string& problem, const std::string& version) {
  auto out = Napi::Object::New(env);
  out["available"] = Napi::Boolean::New(env, problem.empty());
  out["path"] = Napi::String::New(env, found.path);
  out["version"] = Napi::String::New(env, problem.empty() ? version : "");
  out["problem"] = Napi::String::New(env, problem);
  auto searched = Napi::Array::New(env, found.searched.size());
  for (size_t i = 0; i < found.searched.size(); i++) searched[i] = Napi::String::New(env, found.searched[i]);
  out["searched"] = searched;
  return out;
}

Napi::Value libraryInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info[0].As<Napi::String>().Utf8Value() == "cublas") {
    const cublas::Cublas& t = cublas::cublas();
    return describe(env, t.found, t.problem, std::to_string(t.major) + "." + std::to_string(t.minor) + "." + std::to_string(t.patch));
  }
  const cufft::Cufft& t = cufft::cufft();
  // cufftGetVersion: major * 1000 + minor * 100 + patch.
  std::string version = std::to_string(t.version / 1000) + "." + std::to_string(t.version / 100 % 10) + "." +
                        std::to_string(t.version % 100);
  return describe(env, t.found, t.problem, version);
}

Napi::Value libraryBlocks(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  namespace b = blocks;
  auto fields = [&](std::initializer_list<std::pair<const char*, int>> list) {
    auto out = Napi::Object::New(env);
    for (const auto& [name, index] : list) out[name] = Napi::Number::New(env, index);
    return out;
  };
  auto out = Napi::Object::New(env);
  out["gemm"] = fields({{"streamLo", b::kStreamLo}, {"transA", b::kTransA}, {"m", b::kM}, {"alpha", b::kAlpha},
                        {"aLo", b::kALo}, {"lda", b::kLda}, {"strideA", b::kStrideA}, {"bLo", b::kBLo},
                        {"cLo", b::kCLo}, {"strideC", b::kStrideC}, {"batch", b::kBatch}, {"abType", b::kABType},
                        {"cType", b::kCType}, {"workLo", b::kWorkLo}, {"workBytes", b::kWorkBytes},
                        {"slots", b::kGemmSlots}, {"bf16", b::kBF16}, {"f64", b::kF64}});
  out["fft"] = fields({{"streamLo", b::kFftStreamLo}, {"plan", b::kPlan}, {"direction", b::kDirection},
                       {"inLo", b::kInLo}, {"outLo", b::kOutLo}, {"workLo", b::kFftWorkLo},
                       {"workBytes", b::kFftWorkBytes}, {"slots", b::kFftSlots}});
  out["plan"] = fields({{"kind", b::kKind}, {"precision", b::kPrecision}, {"rank", b::kRank}, {"n0", b::kN0},
                        {"batch", b::kPlanBatch}, {"slots", b::kPlanSlots}, {"c2r", b::kC2R}, {"double", b::kDouble}});
  return out;
}

}  // namespace

void defineLibraryInfo(Napi::Env env, Napi::Object exports) {
  exports["libraryInfo"] = Napi::Function::New(env, libraryInfo, "libraryInfo");
  exports["libraryBlocks"] = Napi::Function::New(env, libraryBlocks, "libraryBlocks");
}

}  // namespace rxcuda
