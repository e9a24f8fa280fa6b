// Native C++ baselines that bench/ runs in the same process as rxcuda, through the same driver
// entry points, so each benchmark reports rxcuda's cost as a ratio to the raw driver's.
#include <napi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <vector>

#include "../../native/src/cuda/driver.hpp"

namespace {

using rxcuda::cu::call;
using rxcuda::cu::driver;
using Clock = std::chrono::steady_clock;

void check(Napi::Env env, rxcuda::cu::Result r, const char* what) {
  if (r != rxcuda::cu::kSuccess)
    throw Napi::Error::New(env, std::string(what) + " failed: " + rxcuda::cu::errorName(r));
}

// launchBursts(fn: bigint, stream: bigint, sizes: Uint32Array, bursts: number, burstSize: number)
//   -> Float64Array: nanoseconds per launch in each burst. The drain after each burst is untimed.
Napi::Value launchBursts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  bool lossless = false;
  auto fn = reinterpret_cast<rxcuda::cu::Function>(info[0].As<Napi::BigInt>().Uint64Value(&lossless));
  auto stream = reinterpret_cast<rxcuda::cu::Stream>(info[1].As<Napi::BigInt>().Uint64Value(&lossless));
  auto sizes = info[2].As<Napi::Uint32Array>();
  uint32_t bursts = info[3].As<Napi::Number>().Uint32Value();
  uint32_t burstSize = info[4].As<Napi::Number>().Uint32Value();
  const auto& d = driver();
  rxcuda::cu::Context ctx = nullptr;
  check(env, call(d.cuStreamGetCtx, stream, &ctx), "cuStreamGetCtx");
  check(env, call(d.cuCtxSetCurrent, ctx), "cuCtxSetCurrent");

  alignas(16) unsigned char values[512] = {0};
  std::vector<void*> params;
  size_t offset = 0;
  for (size_t i = 0; i < sizes.ElementLength(); i++) {
    size_t size = sizes[i];
    offset = (offset + size - 1) / size * size;
    params.push_back(values + offset);
    offset += size;
  }
  rxcuda::cu::LaunchConfig config{1, 1, 1, 32, 1, 1, 0, stream, nullptr, 0};
  auto out = Napi::Float64Array::New(env, bursts);
  for (uint32_t b = 0; b < bursts; b++) {
    auto start = Clock::now();
    for (uint32_t i = 0; i < burstSize; i++)
      check(env, d.cuLaunchKernelEx(&config, fn, params.empty() ? nullptr : params.data(), nullptr),
            "cuLaunchKernelEx");
    auto end = Clock::now();
    check(env, call(d.cuStreamSynchronize, stream), "cuStreamSynchronize");
    out[b] = std::chrono::duration<double, std::nano>(end - start).count() / burstSize;
  }
  return out;
}

double micros(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

rxcuda::cu::Stream streamArg(const Napi::Value& v) {
  bool lossless = false;
  return reinterpret_cast<rxcuda::cu::Stream>(v.As<Napi::BigInt>().Uint64Value(&lossless));
}

rxcuda::cu::Function functionArg(const Napi::Value& v) {
  bool lossless = false;
  return reinterpret_cast<rxcuda::cu::Function>(v.As<Napi::BigInt>().Uint64Value(&lossless));
}

struct Wakeup {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
};

void wake(void* data) {
  auto* w = static_cast<Wakeup*>(data);
  std::lock_guard<std::mutex> lock(w->mutex);
  w->done = true;
  w->cv.notify_one();
}

// hostCallbackRoundTrips(kernel, stream, count) -> Float64Array of microseconds: an empty kernel
// launched, then cuLaunchHostFunc waking this thread through a condition variable.
Napi::Value hostCallbackRoundTrips(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto fn = functionArg(info[0]);
  auto stream = streamArg(info[1]);
  uint32_t count = info[2].As<Napi::Number>().Uint32Value();
  const auto& d = driver();
  rxcuda::cu::LaunchConfig config{1, 1, 1, 1, 1, 1, 0, stream, nullptr, 0};
  auto out = Napi::Float64Array::New(env, count);
  Wakeup w;
  for (uint32_t i = 0; i < count; i++) {
    w.done = false;
    auto start = Clock::now();
    check(env, d.cuLaunchKernelEx(&config, fn, nullptr, nullptr), "cuLaunchKernelEx");
    check(env, call(d.cuLaunchHostFunc, stream, &wake, static_cast<void*>(&w)), "cuLaunchHostFunc");
    std::unique_lock<std::mutex> lock(w.mutex);
    w.cv.wait(lock, [&] { return w.done; });
    out[i] = micros(start, Clock::now());
  }
  return out;
}

// gateRoundTrips(store, stream, gate, flag, count) -> Float64Array of microseconds: the stream
// waits (cuStreamWaitValue32) on the pinned word `gate`; behind the wait, `store(flag, i)`. Timed
// from the host's store to the gate until this thread sees the kernel's write to `flag`.
Napi::Value gateRoundTrips(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto fn = functionArg(info[0]);
  auto stream = streamArg(info[1]);
  bool lossless = false;
  auto* gate = reinterpret_cast<volatile uint32_t*>(info[2].As<Napi::BigInt>().Uint64Value(&lossless));
  auto* flag = reinterpret_cast<volatile uint32_t*>(info[3].As<Napi::BigInt>().Uint64Value(&lossless));
  uint32_t count = info[4].As<Napi::Number>().Uint32Value();
  const auto& d = driver();
  rxcuda::cu::LaunchConfig config{1, 1, 1, 1, 1, 1, 0, stream, nullptr, 0};
  auto out = Napi::Float64Array::New(env, count);
  *gate = 0;
  *flag = 0;
  uint64_t flagAddress = reinterpret_cast<uintptr_t>(flag);
  for (uint32_t i = 1; i <= count; i++) {
    uint32_t value = i;
    void* params[] = {&flagAddress, &value};
    check(env, call(d.cuStreamWaitValue32, stream, reinterpret_cast<uintptr_t>(gate), i, 0u), "cuStreamWaitValue32");
    check(env, d.cuLaunchKernelEx(&config, fn, params, nullptr), "cuLaunchKernelEx");
    // Let the stream reach the wait, as it has when a host step runs.
    auto engaged = Clock::now() + std::chrono::microseconds(100);
    while (Clock::now() < engaged) {}
    auto start = Clock::now();
    *gate = i;
    while (*flag != i) {}
    out[i - 1] = micros(start, Clock::now());
  }
  check(env, call(d.cuStreamSynchronize, stream), "cuStreamSynchronize");
  return out;
}

// synchronize(stream: bigint): blocks until the stream is idle. Benchmarks use it for their untimed
// drains, so rxcuda and the baseline drain the same way.
Napi::Value synchronize(const Napi::CallbackInfo& info) {
  bool lossless = false;
  auto stream = reinterpret_cast<rxcuda::cu::Stream>(info[0].As<Napi::BigInt>().Uint64Value(&lossless));
  check(info.Env(), call(driver().cuStreamSynchronize, stream), "cuStreamSynchronize");
  return info.Env().Undefined();
}

// noop(): an empty Node-API call, to show what crossing from JavaScript into C++ costs.
napi_value noop(napi_env, napi_callback_info) { return nullptr; }

Napi::Object init(Napi::Env env, Napi::Object exports) {
  exports["launchBursts"] = Napi::Function::New(env, launchBursts, "launchBursts");
  exports["synchronize"] = Napi::Function::New(env, synchronize, "synchronize");
  exports["hostCallbackRoundTrips"] = Napi::Function::New(env, hostCallbackRoundTrips, "hostCallbackRoundTrips");
  exports["gateRoundTrips"] = Napi::Function::New(env, gateRoundTrips, "gateRoundTrips");
  napi_value fn = nullptr;
  napi_create_function(env, "noop", NAPI_AUTO_LENGTH, noop, nullptr, &fn);
  exports["noop"] = Napi::Value(env, fn);
  return exports;
}

}  // namespace

NODE_API_MODULE(rxcuda_bench, init)
