#include "blas.hpp"

#include "../driver/library-blocks.hpp"
#include "library-work.hpp"

namespace rxcuda {
namespace {

namespace b = blocks;

int dataType(double element) {
  switch (static_cast<int>(element)) {
    case b::kF16: return cublas::kR16F;
    case b::kBF16: return cublas::kR16BF;
    case b::kF64: return cublas::kR64F;
    default: return cublas::kR32F;
  }
}

}  // namespace

void BlasObject::define(Napi::Env env, Napi::Object exports) {
  exports["CudaBlas"] = DefineClass(env, "CudaBlas",
                                    {
                                        InstanceMethod<&BlasObject::open>("open"),
                                        InstanceMethod<&BlasObject::gemm>("gemm"),
                                        InstanceMethod<&BlasObject::bindBlock>("bind"),
                                    });
}

BlasObject::BlasObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<BlasObject>(info) {
  bind(info.Env(), info[0]);
}

// A handle still being made when this runs (the object collected meanwhile) is left to the context.
void BlasObject::closeHandles() {
  if (handle_->handle) cublas::cublas().cublasDestroy_v2(handle_->handle);
  handle_->handle = nullptr;
}

Napi::Value BlasObject::open(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!cublas::cublas().problem.empty()) throw Napi::Error::New(env, cublas::cublas().problem);
  return LibraryWork::run(env, ctx, [handle = handle_](uint64_t&, uint64_t&) {
    return cublas::cublas().cublasCreate_v2(&handle->handle);
  });
}

Napi::Value BlasObject::gemm(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), run(info.Env(), info[0].As<Napi::Float64Array>().Data()));
}

Napi::Value BlasObject::bindBlock(const Napi::CallbackInfo& info) {
  return bound_.bind(info.Env(), info[0].As<Napi::Float64Array>(), this, "gemm");
}

int BlasObject::run(Napi::Env env, const double* block) {
  Addon::of(env).makeCurrent(env, ctx);
  auto stream = reinterpret_cast<cu::Stream>(static_cast<uintptr_t>(b::address(block, b::kStreamLo)));
  return enqueue(stream, block, b::address(block, b::kWorkLo), static_cast<size_t>(block[b::kWorkBytes]));
}

int BlasObject::enqueue(cu::Stream stream, const double* block, cu::DevicePtr workspace, size_t bytes) {
  const cublas::Cublas& t = cublas::cublas();
  cublas::Handle h = handle_->handle;
  if (!h) return cublas::kNotInitialized;
  if (stream != lastStream_) {
    // Setting the stream resets the workspace to cuBLAS's own: it is set again below.
    if (int s = t.cublasSetStream_v2(h, stream); s != cublas::kSuccess) return s;
    lastStream_ = stream;
    lastWorkspace_ = ~cu::DevicePtr{0};
  }
  if (workspace != lastWorkspace_ || bytes != lastBytes_) {
    if (int s = t.cublasSetWorkspace_v2(h, reinterpret_cast<void*>(workspace), bytes); s != cublas::kSuccess) return s;
    lastWorkspace_ = workspace;
    lastBytes_ = bytes;
  }
  int ab = dataType(block[b::kABType]);
  int c = dataType(block[b::kCType]);
  bool f64 = ab == cublas::kR64F;
  // Host scalars of the compute type: f32 accumulation for every type but f64.
  float alpha32 = static_cast<float>(block[b::kAlpha]), beta32 = static_cast<float>(block[b::kBeta]);
  double alpha64 = block[b::kAlpha], beta64 = block[b::kBeta];
  const void* alpha = f64 ? static_cast<const void*>(&alpha64) : &alpha32;
  const void* beta = f64 ? static_cast<const void*>(&beta64) : &beta32;
  int compute = f64 ? cublas::kCompute64F : cublas::kCompute32F;
  auto ptr = [&](int lo) { return reinterpret_cast<void*>(static_cast<uintptr_t>(b::address(block, lo))); };
  auto i32 = [&](int field) { return static_cast<int>(block[field]); };
  auto i64 = [&](int field) { return static_cast<long long>(block[field]); };
  if (i32(b::kBatch) == 1)
    return t.cublasGemmEx(h, i32(b::kTransA), i32(b::kTransB), i32(b::kM), i32(b::kN), i32(b::kK), alpha,
                          ptr(b::kALo), ab, i32(b::kLda), ptr(b::kBLo), ab, i32(b::kLdb), beta, ptr(b::kCLo), c,
                          i32(b::kLdc), compute, cublas::kGemmDefault);
  return t.cublasGemmStridedBatchedEx(h, i32(b::kTransA), i32(b::kTransB), i32(b::kM), i32(b::kN), i32(b::kK),
                                      alpha, ptr(b::kALo), ab, i32(b::kLda), i64(b::kStrideA), ptr(b::kBLo), ab,
                                      i32(b::kLdb), i64(b::kStrideB), beta, ptr(b::kCLo), c, i32(b::kLdc),
                                      i64(b::kStrideC), i32(b::kBatch), compute, cublas::kGemmDefault);
}

}  // namespace rxcuda
