#include "library-work.hpp"

namespace rxcuda {

LibraryWork::LibraryWork(Napi::Env env, cu::Context ctx, Call call, bool settles)
    : Napi::AsyncWorker(env, "rxcuda:library"), ctx_(ctx), call_(std::move(call)), settles_(settles), deferred_(env) {}

Napi::Promise LibraryWork::run(Napi::Env env, cu::Context ctx, Call call) {
  auto* work = new LibraryWork(env, ctx, std::move(call), true);
  Napi::Promise promise = work->deferred_.Promise();
  work->Queue();
  return promise;
}

void LibraryWork::detach(Napi::Env env, cu::Context ctx, Call call) {
  (new LibraryWork(env, ctx, std::move(call), false))->Queue();
}

void LibraryWork::Execute() {
  context_ = cu::call(cu::driver().cuCtxSetCurrent, ctx_);
  if (context_ == cu::kSuccess) status_ = call_(first_, second_);
}

void LibraryWork::OnOK() {
  if (!settles_) return;
  Napi::Env env = Env();
  if (context_ != cu::kSuccess) {
    try {
      Addon::of(env).throwCuda(env, context_, "cuCtxSetCurrent");
    } catch (const Napi::Error& error) {
      deferred_.Reject(error.Value());
    }
    return;
  }
  auto out = Napi::Array::New(env, 3);
  out[0u] = Napi::Number::New(env, status_);
  out[1u] = Napi::Number::New(env, static_cast<double>(first_));
  out[2u] = Napi::Number::New(env, static_cast<double>(second_));
  deferred_.Resolve(out);
}

}  // namespace rxcuda
