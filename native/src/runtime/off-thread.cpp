#include "off-thread.hpp"

#include "../addon.hpp"

namespace rxcuda {

OffThread::OffThread(Napi::Env env, cu::Context ctx, const char* name, Call call, bool settles)
    : Napi::AsyncWorker(env, name),
      ctx_(ctx),
      name_(name),
      call_(std::move(call)),
      settles_(settles),
      deferred_(env) {}

Napi::Promise OffThread::run(Napi::Env env, cu::Context ctx, const char* name, Call call) {
  auto* work = new OffThread(env, ctx, name, std::move(call), true);
  Napi::Promise promise = work->deferred_.Promise();
  work->Queue();
  return promise;
}

void OffThread::detach(Napi::Env env, cu::Context ctx, const char* name, Call call) {
  // What it frees (a module, pinned memory) may be named by work the device threads still hold.
  Addon::of(env).drain();
  (new OffThread(env, ctx, name, std::move(call), false))->Queue();
}

void OffThread::Execute() {
  status_ = cu::call(cu::driver().cuCtxSetCurrent, ctx_);
  if (status_ == cu::kSuccess) status_ = call_(result_);
}

void OffThread::OnOK() {
  if (!settles_) return;
  Napi::Env env = Env();
  if (status_ == cu::kSuccess) {
    deferred_.Resolve(Napi::BigInt::New(env, result_));
    return;
  }
  try {
    Addon::of(env).throwCuda(env, status_, name_);
  } catch (const Napi::Error& error) {
    deferred_.Reject(error.Value());
  }
}

}  // namespace rxcuda
