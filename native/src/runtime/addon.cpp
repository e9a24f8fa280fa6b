// Addon's members that call the driver or throw: contexts made current, commands submitted on
// the main thread, and the typed errors TypeScript handed over at init.
#include "addon.hpp"

namespace rxcuda {

cu::Result Addon::submitNow(Napi::Env env, Op op, LaneState& lane, const void* payload, size_t bytes,
                            const char*& call) {
  makeCurrent(env, lane.ctx);
  CommandHeader h{commandBytes(bytes, 0), op, &lane};
  std::vector<void*> params;
  return submitCommand(h, static_cast<const uint8_t*>(payload), params, call);
}

void Addon::makeCurrentOnly(Napi::Env env, cu::Context ctx) {
  if (current == ctx) return;
  check(env, cu::call(cu::driver().cuCtxSetCurrent, ctx), "cuCtxSetCurrent");
  current = ctx;
}

void Addon::throwCuda(Napi::Env env, cu::Result r, const char* call) const {
  std::string name = cu::errorName(r);
  std::string message = call + std::string(" failed: ") + name + " (" + cu::errorString(r) + ")";
  throw Napi::Error(env, cudaError.New({Napi::Number::New(env, r), Napi::String::New(env, name),
                                        Napi::String::New(env, call),
                                        Napi::String::New(env, message)}));
}

void Addon::throwCuda(Napi::Env env, cu::Result r, const char* call,
                      const std::string& message) const {
  throw Napi::Error(env, cudaError.New({Napi::Number::New(env, r),
                                        Napi::String::New(env, cu::errorName(r)),
                                        Napi::String::New(env, call),
                                        Napi::String::New(env, message)}));
}

void Addon::throwNvrtc(Napi::Env env, int code, const std::string& message,
                       const std::string& log) const {
  throw Napi::Error(env, nvrtcError.New({Napi::Number::New(env, code),
                                         Napi::String::New(env, message),
                                         Napi::String::New(env, log)}));
}

const cu::Driver& Addon::driver(Napi::Env env) const {
  const cu::Driver& d = cu::driver();
  if (!d.problem.empty()) throwCuda(env, d.unavailable, "cuInit", d.problem);
  return d;
}

uint64_t toU64(const Napi::Value& v) {
  if (v.IsBigInt()) {
    bool lossless = false;
    return v.As<Napi::BigInt>().Uint64Value(&lossless);
  }
  return static_cast<uint64_t>(v.As<Napi::Number>().Int64Value());
}

}  // namespace rxcuda
