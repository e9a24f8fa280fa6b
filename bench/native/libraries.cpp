#include "libraries.hpp"

#include <chrono>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "../../native/src/driver/cublas.hpp"
#include "../../native/src/driver/cufft.hpp"
#include "../../native/src/driver/baseline-driver.hpp"

namespace bench {
namespace {

namespace cu = rxcuda::cu;
namespace cublas = rxcuda::cublas;
namespace cufft = rxcuda::cufft;
using Clock = std::chrono::steady_clock;

uint64_t bigintArg(const Napi::Value& v) {
  bool lossless = false;
  return v.As<Napi::BigInt>().Uint64Value(&lossless);
}

void check(Napi::Env env, int status, const char* what) {
  if (status != 0) throw Napi::Error::New(env, std::string(what) + " failed with status " + std::to_string(status));
}

// Makes the stream's context current; returns the stream.
cu::Stream enter(Napi::Env env, const Napi::Value& value) {
  auto stream = reinterpret_cast<cu::Stream>(bigintArg(value));
  cu::Context ctx = nullptr;
  check(env, cu::call(cu::baselineDriver().cuStreamGetCtx, stream, &ctx), "cuStreamGetCtx");
  check(env, cu::call(cu::baselineDriver().cuCtxSetCurrent, ctx), "cuCtxSetCurrent");
  return stream;
}

// A plain program keeps one handle and its plans for its whole run: so does this baseline.
cublas::Handle handleFor(Napi::Env env, cu::Stream stream) {
  static cublas::Handle handle = nullptr;
  const cublas::Cublas& t = cublas::cublas();
  if (!t.problem.empty()) throw Napi::Error::New(env, t.problem);
  if (!handle) check(env, t.cublasCreate_v2(&handle), "cublasCreate");
  check(env, t.cublasSetStream_v2(handle, stream), "cublasSetStream");
  return handle;
}

// One GEMM of n × n × n (type 0: f32, 1: f16 with f32 sums), as cuBLAS's own samples call it.
int gemm(cublas::Handle handle, int type, int n, void* a, void* b, void* c) {
  const float alpha = 1, beta = 0;
  int data = type == 0 ? cublas::kR32F : cublas::kR16F;
  return cublas::cublas().cublasGemmEx(handle, cublas::kOpN, cublas::kOpN, n, n, n, &alpha, a, data, n, b, data, n, &beta,
                                       c, data, n, cublas::kCompute32F, cublas::kGemmDefault);
}

// gemmDevice(stream, type, n, a, b, c, iterations) -> milliseconds of device time per GEMM,
// between two events around `iterations` GEMMs (after one untimed).
Napi::Value gemmDevice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  cu::Stream stream = enter(env, info[0]);
  int type = info[1].As<Napi::Number>().Int32Value(), n = info[2].As<Napi::Number>().Int32Value();
  auto ptr = [&](int i) { return reinterpret_cast<void*>(bigintArg(info[i])); };
  int iterations = info[6].As<Napi::Number>().Int32Value();
  cublas::Handle handle = handleFor(env, stream);
  const auto& d = cu::baselineDriver();
  cu::Event start = nullptr, end = nullptr;
  check(env, cu::call(d.cuEventCreate, &start, 0u), "cuEventCreate");
  check(env, cu::call(d.cuEventCreate, &end, 0u), "cuEventCreate");
  check(env, gemm(handle, type, n, ptr(3), ptr(4), ptr(5)), "cublasGemmEx");
  check(env, cu::call(d.cuEventRecord, start, stream), "cuEventRecord");
  for (int i = 0; i < iterations; i++) check(env, gemm(handle, type, n, ptr(3), ptr(4), ptr(5)), "cublasGemmEx");
  check(env, cu::call(d.cuEventRecord, end, stream), "cuEventRecord");
  check(env, cu::call(d.cuEventSynchronize, end), "cuEventSynchronize");
  float ms = 0;
  check(env, cu::call(d.cuEventElapsedTime, &ms, start, end), "cuEventElapsedTime");
  cu::call(d.cuEventDestroy, start);
  cu::call(d.cuEventDestroy, end);
  return Napi::Number::New(env, ms / iterations);
}

// Times bursts of `calls` on the host; the drain after each burst is not timed.
template <class Call>
Napi::Value bursts(Napi::Env env, cu::Stream stream, uint32_t count, uint32_t size, Call call) {
  auto out = Napi::Float64Array::New(env, count);
  for (uint32_t b = 0; b < count; b++) {
    auto start = Clock::now();
    for (uint32_t i = 0; i < size; i++) call();
    auto end = Clock::now();
    check(env, cu::call(cu::baselineDriver().cuStreamSynchronize, stream), "cuStreamSynchronize");
    out[b] = std::chrono::duration<double, std::nano>(end - start).count() / size;
  }
  return out;
}

// gemmHost(stream, type, n, a, b, c, bursts, size) -> Float64Array: host nanoseconds per GEMM call.
Napi::Value gemmHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  cu::Stream stream = enter(env, info[0]);
  int type = info[1].As<Napi::Number>().Int32Value(), n = info[2].As<Napi::Number>().Int32Value();
  void *a = reinterpret_cast<void*>(bigintArg(info[3])), *b = reinterpret_cast<void*>(bigintArg(info[4])),
       *c = reinterpret_cast<void*>(bigintArg(info[5]));
  cublas::Handle handle = handleFor(env, stream);
  int status = 0;
  auto out = bursts(env, stream, info[6].As<Napi::Number>().Uint32Value(), info[7].As<Napi::Number>().Uint32Value(),
                    [&] { status |= gemm(handle, type, n, a, b, c); });
  check(env, status, "cublasGemmEx");
  return out;
}

// fftHost(stream, n, batch, in, out, bursts, size) -> Float64Array: host nanoseconds per C2C call
// with a plan made before (cuFFT's own work area).
Napi::Value fftHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  cu::Stream stream = enter(env, info[0]);
  const cufft::Cufft& t = cufft::cufft();
  if (!t.problem.empty()) throw Napi::Error::New(env, t.problem);
  long long n = info[1].As<Napi::Number>().Int64Value(), batch = info[2].As<Napi::Number>().Int64Value();
  static std::map<std::pair<long long, long long>, cufft::Plan> plans;
  auto& plan = plans[{n, batch}];
  if (!plan) {
    size_t work = 0;
    check(env, t.cufftCreate(&plan), "cufftCreate");
    check(env, t.cufftMakePlanMany64(plan, 1, &n, nullptr, 1, 0, nullptr, 1, 0, cufft::kC2C, batch, &work), "cufftMakePlanMany64");
  }
  check(env, t.cufftSetStream(plan, stream), "cufftSetStream");
  void *in = reinterpret_cast<void*>(bigintArg(info[3])), *out = reinterpret_cast<void*>(bigintArg(info[4]));
  int status = 0;
  auto times = bursts(env, stream, info[5].As<Napi::Number>().Uint32Value(), info[6].As<Napi::Number>().Uint32Value(),
                      [&] { status |= t.cufftExecC2C(plan, in, out, cufft::kForward); });
  check(env, status, "cufftExecC2C");
  return times;
}

}  // namespace

void defineLibraryBaselines(Napi::Env env, Napi::Object exports) {
  exports["gemmDevice"] = Napi::Function::New(env, gemmDevice, "gemmDevice");
  exports["gemmHost"] = Napi::Function::New(env, gemmHost, "gemmHost");
  exports["fftHost"] = Napi::Function::New(env, fftHost, "fftHost");
}

}  // namespace bench
