#include "off-thread.hpp"

#include "addon.hpp"

namespace rxcuda {

namespace {

OffThread::ExplainedCall explained(OffThread::Call call) {
  return [call = std::move(call)](uint64_t& result, OffThread::Failure&) { return call(result); };
}

}  // namespace

OffThread::OffThread(Napi::Env env, cu::Context ctx, const char* name, ExplainedCall call,
                     bool settles)
    : Napi::AsyncWorker(env, name),
      ctx_(ctx),
      name_(name),
      call_(std::move(call)),
      settles_(settles),
      deferred_(env) {}

Napi::Promise OffThread::run(Napi::Env env, cu::Context ctx, const char* name, Call call) {
  return run(env, ctx, name, explained(std::move(call)));
}

Napi::Promise OffThread::run(Napi::Env env, cu::Context ctx, const char* name,
                             ExplainedCall call) {
  auto* work = new OffThread(env, ctx, name, std::move(call), true);
  Napi::Promise promise = work->deferred_.Promise();
  work->Queue();
  return promise;
}

void OffThread::detach(Napi::Env env, cu::Context ctx, const char* name, Call call) {
  // What it frees (a module, pinned memory) may be named by work the device threads still hold.
  Addon::of(env).drain();
  (new OffThread(env, ctx, name, explained(std::move(call)), false))->Queue();
}

void OffThread::Execute() {
  status_ = cu::call(cu::driver().cuCtxSetCurrent, ctx_);
  if (status_ == cu::kSuccess) status_ = call_(result_, failure_);
}

void OffThread::OnOK() {
  if (!settles_) return;
  Napi::Env env = Env();
  if (status_ == cu::kSuccess) {
    deferred_.Resolve(Napi::BigInt::New(env, result_));
    return;
  }
  const char* call = failure_.call ? failure_.call : name_;
  try {
    if (failure_.detail.empty()) Addon::of(env).throwCuda(env, status_, call);
    Addon::of(env).throwCuda(env, status_, call,
                             std::string(call) + " failed: " + cu::errorName(status_) + " (" +
                                 cu::errorString(status_) + "): " + failure_.detail);
  } catch (const Napi::Error& error) {
    deferred_.Reject(error.Value());
  }
}

}  // namespace rxcuda
