// Native C++ baselines that bench/ runs in the same process as rxcuda, through the same driver
// entry points, so each benchmark reports rxcuda's cost as a ratio to the raw driver's.
#include <napi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
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
  napi_value fn = nullptr;
  napi_create_function(env, "noop", NAPI_AUTO_LENGTH, noop, nullptr, &fn);
  exports["noop"] = Napi::Value(env, fn);
  return exports;
}

}  // namespace

NODE_API_MODULE(rxcuda_bench, init)
