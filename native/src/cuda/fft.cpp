#include "fft.hpp"

#include "../driver/library-blocks.hpp"
#include "library-work.hpp"

namespace rxcuda {
namespace {

namespace b = blocks;

int typeOf(int kind, bool f64) {
  switch (kind) {
    case b::kR2C: return f64 ? cufft::kD2Z : cufft::kR2C;
    case b::kC2R: return f64 ? cufft::kZ2D : cufft::kC2R;
    default: return f64 ? cufft::kZ2Z : cufft::kC2C;
  }
}

}  // namespace

void FftObject::define(Napi::Env env, Napi::Object exports) {
  exports["CudaFft"] = DefineClass(env, "CudaFft",
                                   {
                                       InstanceMethod<&FftObject::plan>("plan"),
                                       InstanceMethod<&FftObject::exec>("exec"),
                                       InstanceMethod<&FftObject::bindBlock>("bind"),
                                       InstanceMethod<&FftObject::destroyPlan>("destroyPlan"),
                                   });
}

FftObject::FftObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<FftObject>(info) {
  bind(info.Env(), info[0]);
}

Napi::Value FftObject::plan(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const cufft::Cufft& t = cufft::cufft();
  if (!t.problem.empty()) throw Napi::Error::New(env, t.problem);
  const double* d = info[0].As<Napi::Float64Array>().Data();
  auto plan = std::make_shared<Plan>();
  plan->type = typeOf(static_cast<int>(d[b::kKind]), static_cast<int>(d[b::kPrecision]) == b::kDouble);
  int rank = static_cast<int>(d[b::kRank]);
  std::vector<long long> n;
  for (int i = 0; i < rank; i++) n.push_back(static_cast<long long>(d[b::kN0 + i]));
  auto batch = static_cast<long long>(d[b::kPlanBatch]);
  size_t slot = 0;
  while (slot < plans_.size() && plans_[slot]) slot++;
  if (slot == plans_.size()) plans_.emplace_back();
  plans_[slot] = plan;
  // Null embeddings: the basic layout, each transform's data packed, batches one after another.
  Napi::Promise made = LibraryWork::run(env, ctx, [plan, n, rank, batch](uint64_t& workBytes, uint64_t&) mutable {
    const cufft::Cufft& t = cufft::cufft();
    cufft::Plan handle = 0;
    if (int r = t.cufftCreate(&handle); r != cufft::kSuccess) return r;
    size_t work = 0;
    int r = t.cufftSetAutoAllocation(handle, 0);
    if (r == cufft::kSuccess)
      r = t.cufftMakePlanMany64(handle, rank, n.data(), nullptr, 1, 0, nullptr, 1, 0, plan->type, batch, &work);
    if (r != cufft::kSuccess) {
      t.cufftDestroy(handle);
      return r;
    }
    plan->handle = handle;
    plan->made = true;
    workBytes = work;
    return cufft::kSuccess;
  });
  auto out = Napi::Array::New(env, 2);
  out[0u] = Napi::Number::New(env, static_cast<double>(slot));
  out[1u] = made;
  return out;
}

Napi::Value FftObject::exec(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), run(info.Env(), info[0].As<Napi::Float64Array>().Data()));
}

Napi::Value FftObject::bindBlock(const Napi::CallbackInfo& info) {
  return bound_.bind(info.Env(), info[0].As<Napi::Float64Array>(), this, "exec");
}

int FftObject::run(Napi::Env env, const double* block) {
  Addon::of(env).makeCurrent(env, ctx);
  auto stream = reinterpret_cast<cu::Stream>(static_cast<uintptr_t>(b::address(block, b::kFftStreamLo)));
  return enqueue(stream, block, b::address(block, b::kFftWorkLo), static_cast<size_t>(block[b::kFftWorkBytes]));
}

int FftObject::enqueue(cu::Stream stream, const double* block, cu::DevicePtr workspace, size_t bytes) {
  const cufft::Cufft& t = cufft::cufft();
  auto slot = static_cast<size_t>(block[b::kPlan]);
  Plan* plan = slot < plans_.size() ? plans_[slot].get() : nullptr;
  if (!plan || !plan->made) return 1;  // CUFFT_INVALID_PLAN
  if (stream != plan->stream) {
    if (int r = t.cufftSetStream(plan->handle, stream); r != cufft::kSuccess) return r;
    plan->stream = stream;
  }
  if (bytes > 0 && workspace != plan->workArea) {
    if (int r = t.cufftSetWorkArea(plan->handle, reinterpret_cast<void*>(workspace)); r != cufft::kSuccess) return r;
    plan->workArea = workspace;
  }
  auto* in = reinterpret_cast<void*>(static_cast<uintptr_t>(b::address(block, b::kInLo)));
  auto* out = reinterpret_cast<void*>(static_cast<uintptr_t>(b::address(block, b::kOutLo)));
  int direction = block[b::kDirection] < 0 ? cufft::kForward : cufft::kInverse;
  switch (plan->type) {
    case cufft::kC2C: return t.cufftExecC2C(plan->handle, in, out, direction);
    case cufft::kZ2Z: return t.cufftExecZ2Z(plan->handle, in, out, direction);
    case cufft::kR2C: return t.cufftExecR2C(plan->handle, in, out);
    case cufft::kD2Z: return t.cufftExecD2Z(plan->handle, in, out);
    case cufft::kC2R: return t.cufftExecC2R(plan->handle, in, out);
    default: return t.cufftExecZ2D(plan->handle, in, out);
  }
}

void FftObject::forget() {
  for (auto& plan : plans_)
    if (plan) {
      plan->stream = nullptr;
      plan->workArea = ~cu::DevicePtr{0};
    }
}

Napi::Value FftObject::destroyPlan(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto slot = static_cast<size_t>(info[0].As<Napi::Number>().Int64Value());
  if (slot < plans_.size() && plans_[slot]) {
    // Dropped on the worker, where the plan's free may wait for the device.
    LibraryWork::detach(env, ctx, [plan = std::move(plans_[slot])](uint64_t&, uint64_t&) mutable {
      if (plan->made) cufft::cufft().cufftDestroy(plan->handle);
      plan->made = false;
      plan.reset();
      return 0;
    });
    plans_[slot] = nullptr;
  }
  return env.Undefined();
}

// Plans still being made when this runs (the object collected meanwhile) are left to the context.
void FftObject::closeHandles() {
  for (auto& plan : plans_)
    if (plan && plan->made) {
      cufft::cufft().cufftDestroy(plan->handle);
      plan->made = false;
    }
  plans_.clear();
}

}  // namespace rxcuda
