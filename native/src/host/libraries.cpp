#include "libraries.hpp"

#include <exception>

#include "../driver/library-blocks.hpp"
#include "gemm.hpp"
#include "stream.hpp"

namespace rxcuda::host {
namespace {

namespace b = blocks;

Queue* queueOf(const double* block, int lo) { return HostStream::fromHandle(b::address(block, lo)); }

// `work` as a command of a stream of a device with `fault`: skipped once the device has broken,
// as the stream's own commands are; a failure to allocate its buffers leaves the output as it was.
template <class Work>
Queue::Command command(const HostDevice::Fault& fault, Work work) {
  return [fault, work = std::move(work)]() mutable {
    if (fault->load(std::memory_order_acquire)) return;
    try {
      work();
    } catch (const std::exception&) {
    }
  };
}

}  // namespace

void HostBlas::define(Napi::Env env, Napi::Object exports) {
  exports["HostBlas"] = DefineClass(env, "HostBlas",
                                    {InstanceMethod<&HostBlas::gemm>("gemm"), InstanceMethod<&HostBlas::bind>("bind")});
}

HostBlas::HostBlas(const Napi::CallbackInfo& info) : Napi::ObjectWrap<HostBlas>(info) {
  fault_ = HostDevice::Unwrap(info[0].As<Napi::Object>())->fault();
}

Napi::Value HostBlas::gemm(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), run(info[0].As<Napi::Float64Array>().Data()));
}

Napi::Value HostBlas::bind(const Napi::CallbackInfo& info) {
  return bound_.bind(info.Env(), info[0].As<Napi::Float64Array>(), this, "gemm");
}

int HostBlas::run(const double* block) {
  GemmParams params = gemmParams(block);
  queueOf(block, b::kStreamLo)->push(command(fault_, [params] { host::gemm(params); }));
  return 0;
}

void HostFft::define(Napi::Env env, Napi::Object exports) {
  exports["HostFft"] = DefineClass(env, "HostFft",
                                   {
                                       InstanceMethod<&HostFft::plan>("plan"),
                                       InstanceMethod<&HostFft::exec>("exec"),
                                       InstanceMethod<&HostFft::bind>("bind"),
                                       InstanceMethod<&HostFft::destroyPlan>("destroyPlan"),
                                   });
}

HostFft::HostFft(const Napi::CallbackInfo& info) : Napi::ObjectWrap<HostFft>(info) {
  fault_ = HostDevice::Unwrap(info[0].As<Napi::Object>())->fault();
}

// The plan's tables are made by its first execution, off the main thread: nothing to wait for.
Napi::Value HostFft::plan(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const double* d = info[0].As<Napi::Float64Array>().Data();
  std::vector<int64_t> sizes;
  for (int i = 0; i < static_cast<int>(d[b::kRank]); i++) sizes.push_back(static_cast<int64_t>(d[b::kN0 + i]));
  auto plan = std::make_shared<HostPlan>(static_cast<int>(d[b::kKind]), static_cast<int>(d[b::kPrecision]) == b::kDouble,
                                         std::move(sizes), static_cast<int64_t>(d[b::kPlanBatch]));
  size_t slot = 0;
  while (slot < plans_.size() && plans_[slot]) slot++;
  if (slot == plans_.size()) plans_.emplace_back();
  plans_[slot] = std::move(plan);
  auto out = Napi::Array::New(env, 2);
  out[0u] = Napi::Number::New(env, static_cast<double>(slot));
  out[1u] = env.Undefined();
  return out;
}

Napi::Value HostFft::exec(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), run(info[0].As<Napi::Float64Array>().Data()));
}

Napi::Value HostFft::bind(const Napi::CallbackInfo& info) {
  return bound_.bind(info.Env(), info[0].As<Napi::Float64Array>(), this, "exec");
}

int HostFft::run(const double* block) {
  auto slot = static_cast<size_t>(block[b::kPlan]);
  if (slot >= plans_.size() || !plans_[slot]) return 1;  // CUFFT_INVALID_PLAN
  auto in = reinterpret_cast<const void*>(static_cast<uintptr_t>(b::address(block, b::kInLo)));
  auto out = reinterpret_cast<void*>(static_cast<uintptr_t>(b::address(block, b::kOutLo)));
  bool inverse = block[b::kDirection] > 0;
  queueOf(block, b::kFftStreamLo)->push(command(fault_, [plan = plans_[slot], in, out, inverse] {
    plan->execute(in, out, inverse);
  }));
  return 0;
}

Napi::Value HostFft::destroyPlan(const Napi::CallbackInfo& info) {
  auto slot = static_cast<size_t>(info[0].As<Napi::Number>().Int64Value());
  if (slot < plans_.size()) plans_[slot] = nullptr;  // commands still queued hold the plan
  return info.Env().Undefined();
}

}  // namespace rxcuda::host
