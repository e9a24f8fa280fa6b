#include "submission.hpp"

#include <cstdlib>
#include <thread>

#include "addon.hpp"

namespace rxcuda {

unsigned Submission::threadsPerDevice() {
  if (const char* set = std::getenv("RXCUDA_DEVICE_THREADS")) {
    int n = std::atoi(set);
    if (n >= 1 && n <= 16) return static_cast<unsigned>(n);
  }
  unsigned quarter = std::thread::hardware_concurrency() / 4;
  return quarter < 1 ? 1 : quarter > 4 ? 4 : quarter;
}

Submission::~Submission() {
  // Every thread is asked to end before any is joined and freed: a thread's wait for another's
  // position (waitFor) must find that thread still there.
  for (auto& thread : threads_) thread->stop();
  for (auto& thread : threads_) thread->join();
  threads_.clear();
}

LaneState* Submission::open(cu::Stream stream, cu::Context ctx) {
  DeviceThreads* device = nullptr;
  for (auto& d : devices_)
    if (d.ctx == ctx) device = &d;
  if (!device) {
    DeviceThreads made{ctx, {}, 0};
    for (unsigned i = threadsPerDevice(); i > 0; i--) {
      threads_.push_back(std::make_unique<DeviceThread>(*failures_));
      made.threads.push_back(threads_.back().get());
    }
    devices_.push_back(std::move(made));
    device = &devices_.back();
  }
  auto* lane = new LaneState();
  lane->stream = stream;
  lane->ctx = ctx;
  lane->thread = device->threads[device->next++ % device->threads.size()];
  lanes_[stream] = lane;
  return lane;
}

void Submission::release(LaneState* lane) {
  lanes_.erase(lane->stream);
  lane->thread->begin(Op::Release, lane, 0);
  lane->thread->commit();
}

namespace {

Napi::Value takeSubmitFailures(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  auto out = Napi::Array::New(env);
  uint32_t i = 0;
  for (const SubmitFailure& f : addon.submitter().failures()->take()) {
    auto entry = Napi::Object::New(env);
    entry["handle"] = Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(f.stream)));
    entry["code"] = Napi::Number::New(env, f.code);
    entry["call"] = Napi::String::New(env, f.call);
    out[i++] = entry;
  }
  return out;
}

Napi::Value submissionCounts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Submission& submission = Addon::of(env).submitter();
  auto out = Napi::Object::New(env);
  out["threads"] = Napi::Number::New(env, static_cast<double>(submission.threads()));
  out["waits"] = Napi::Number::New(env, static_cast<double>(submission.waits()));
  return out;
}

}  // namespace

void defineSubmission(Napi::Env env, Napi::Object exports) {
  exports["takeSubmitFailures"] = Napi::Function::New(env, takeSubmitFailures, "takeSubmitFailures");
  exports["submissionCounts"] = Napi::Function::New(env, submissionCounts, "submissionCounts");
}

}  // namespace rxcuda
