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

// The optional workspace arguments at `at` (address, bytes) of the studies: set on the handle
// (after cublasSetStream, which goes back to cuBLAS's own pool); absent or 0n, cuBLAS's own.
void workspaceArgs(const Napi::CallbackInfo& info, size_t at, cublas::Handle handle) {
  if (info.Length() <= at + 1 || !info[at].IsBigInt()) return;
  uint64_t address = bigintArg(info[at]);
  if (address == 0) return;
  auto bytes = static_cast<size_t>(info[at + 1].As<Napi::Number>().Int64Value());
  check(info.Env(), cublas::cublas().cublasSetWorkspace_v2(handle, reinterpret_cast<void*>(address), bytes), "cublasSetWorkspace");
}

// One GEMM of n × n × n (type 0: f32, 1: f16 with f32 sums), as cuBLAS's own samples call it.
int gemm(cublas::Handle handle, int type, int n, void* a, void* b, void* c) {
  const float alpha = 1, beta = 0;
  int data = type == 0 ? cublas::kR32F : cublas::kR16F;
  return cublas::cublas().cublasGemmEx(handle, cublas::kOpN, cublas::kOpN, n, n, n, &alpha, a, data, n, b, data, n, &beta,
                                       c, data, n, cublas::kCompute32F, cublas::kGemmDefault);
}

// gemmDevice(stream, type, n, a, b, c, iterations, warm = true, workspace?, bytes?) ->
// milliseconds of device time per GEMM, between two events around `iterations` GEMMs; with
// `warm`, after one untimed GEMM, so that the device is busy when the first event is recorded.
Napi::Value gemmDevice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  cu::Stream stream = enter(env, info[0]);
  int type = info[1].As<Napi::Number>().Int32Value(), n = info[2].As<Napi::Number>().Int32Value();
  auto ptr = [&](int i) { return reinterpret_cast<void*>(bigintArg(info[i])); };
  int iterations = info[6].As<Napi::Number>().Int32Value();
  bool warm = info.Length() <= 7 || info[7].IsUndefined() || info[7].ToBoolean().Value();
  cublas::Handle handle = handleFor(env, stream);
  workspaceArgs(info, 8, handle);
  const auto& d = cu::baselineDriver();
  cu::Event start = nullptr, end = nullptr;
  check(env, cu::call(d.cuEventCreate, &start, 0u), "cuEventCreate");
  check(env, cu::call(d.cuEventCreate, &end, 0u), "cuEventCreate");
  if (warm) check(env, gemm(handle, type, n, ptr(3), ptr(4), ptr(5)), "cublasGemmEx");
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

// gemmHost(stream, type, n, a, b, c, bursts, size, workspace?, bytes?) -> Float64Array: host
// nanoseconds per GEMM call.
Napi::Value gemmHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  cu::Stream stream = enter(env, info[0]);
  int type = info[1].As<Napi::Number>().Int32Value(), n = info[2].As<Napi::Number>().Int32Value();
  void *a = reinterpret_cast<void*>(bigintArg(info[3])), *b = reinterpret_cast<void*>(bigintArg(info[4])),
       *c = reinterpret_cast<void*>(bigintArg(info[5]));
  cublas::Handle handle = handleFor(env, stream);
  workspaceArgs(info, 8, handle);
  int status = 0;
  auto out = bursts(env, stream, info[6].As<Napi::Number>().Uint32Value(), info[7].As<Napi::Number>().Uint32Value(),
                    [&] { status |= gemm(handle, type, n, a, b, c); });
  check(env, status, "cublasGemmEx");
  return out;
}

// The plan of an n-point c2c transform, `batch` of them: with cuFFT's own work area, or (`own`)
// with auto-allocation off, its work area the caller's, as rxcuda makes its plans.
cufft::Plan planFor(Napi::Env env, long long n, long long batch, bool own) {
  const cufft::Cufft& t = cufft::cufft();
  if (!t.problem.empty()) throw Napi::Error::New(env, t.problem);
  static std::map<std::tuple<long long, long long, bool>, cufft::Plan> plans;
  auto& plan = plans[{n, batch, own}];
  if (!plan) {
    size_t work = 0;
    check(env, t.cufftCreate(&plan), "cufftCreate");
    if (own) check(env, t.cufftSetAutoAllocation(plan, 0), "cufftSetAutoAllocation");
    check(env, t.cufftMakePlanMany64(plan, 1, &n, nullptr, 1, 0, nullptr, 1, 0, cufft::kC2C, batch, &work), "cufftMakePlanMany64");
  }
  return plan;
}

// fftHost(stream, n, batch, in, out, bursts, size, workArea?) -> Float64Array: host nanoseconds
// per C2C call with a plan made before: cuFFT's own work area, or with `workArea` (a bigint
// address, large enough) a plan made as rxcuda makes them, with that work area.
Napi::Value fftHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  cu::Stream stream = enter(env, info[0]);
  const cufft::Cufft& t = cufft::cufft();
  long long n = info[1].As<Napi::Number>().Int64Value(), batch = info[2].As<Napi::Number>().Int64Value();
  uint64_t workArea = info.Length() > 7 && info[7].IsBigInt() ? bigintArg(info[7]) : 0;
  cufft::Plan plan = planFor(env, n, batch, workArea != 0);
  if (workArea) check(env, t.cufftSetWorkArea(plan, reinterpret_cast<void*>(workArea)), "cufftSetWorkArea");
  check(env, t.cufftSetStream(plan, stream), "cufftSetStream");
  void *in = reinterpret_cast<void*>(bigintArg(info[3])), *out = reinterpret_cast<void*>(bigintArg(info[4]));
  int status = 0;
  auto times = bursts(env, stream, info[5].As<Napi::Number>().Uint32Value(), info[6].As<Napi::Number>().Uint32Value(),
                      [&] { status |= t.cufftExecC2C(plan, in, out, cufft::kForward); });
  check(env, status, "cufftExecC2C");
  return times;
}

// gemmOnce(stream, type, n, a, b, c) -> status, and fftOnce(stream, n, in, out) -> status: one
// library call per Node-API call, handle and plan set up at the first (the floor of any binding's
// host time per call: bench/study/gemm-f16 times them from a JavaScript loop).
Napi::Value gemmOnce(const Napi::CallbackInfo& info) {
  static cu::Stream last = nullptr;
  static cublas::Handle handle = nullptr;
  Napi::Env env = info.Env();
  auto stream = reinterpret_cast<cu::Stream>(bigintArg(info[0]));
  if (stream != last) {
    // A handle of its own: the other baselines' handle may hold a workspace a study gave it.
    enter(env, info[0]);
    const cublas::Cublas& t = cublas::cublas();
    if (!t.problem.empty()) throw Napi::Error::New(env, t.problem);
    if (!handle) check(env, t.cublasCreate_v2(&handle), "cublasCreate");
    check(env, t.cublasSetStream_v2(handle, stream), "cublasSetStream");
    last = stream;
  }
  auto ptr = [&](int i) { return reinterpret_cast<void*>(bigintArg(info[i])); };
  return Napi::Number::New(env, gemm(handle, info[1].As<Napi::Number>().Int32Value(), info[2].As<Napi::Number>().Int32Value(),
                                     ptr(3), ptr(4), ptr(5)));
}

Napi::Value fftOnce(const Napi::CallbackInfo& info) {
  static cu::Stream last = nullptr;
  static cufft::Plan plan = 0;
  Napi::Env env = info.Env();
  auto stream = reinterpret_cast<cu::Stream>(bigintArg(info[0]));
  if (stream != last) {
    enter(env, info[0]);
    plan = planFor(env, info[1].As<Napi::Number>().Int64Value(), 1, false);
    check(env, cufft::cufft().cufftSetStream(plan, stream), "cufftSetStream");
    last = stream;
  }
  return Napi::Number::New(env, cufft::cufft().cufftExecC2C(plan, reinterpret_cast<void*>(bigintArg(info[2])),
                                                           reinterpret_cast<void*>(bigintArg(info[3])), cufft::kForward));
}

}  // namespace

void defineLibraryBaselines(Napi::Env env, Napi::Object exports) {
  exports["gemmDevice"] = Napi::Function::New(env, gemmDevice, "gemmDevice");
  exports["gemmHost"] = Napi::Function::New(env, gemmHost, "gemmHost");
  exports["fftHost"] = Napi::Function::New(env, fftHost, "fftHost");
  exports["gemmOnce"] = Napi::Function::New(env, gemmOnce, "gemmOnce");
  exports["fftOnce"] = Napi::Function::New(env, fftOnce, "fftOnce");
}

}  // namespace bench
