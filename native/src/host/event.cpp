#include "event.hpp"

#include "../runtime/addon.hpp"
#include "queue.hpp"

namespace rxcuda::host {

void EventState::reach(uint64_t generation) {
  std::vector<std::shared_ptr<Queue>> resumed;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (generation > reached) {
      reached = generation;
      when = std::chrono::steady_clock::now();
    }
    for (size_t i = 0; i < parked.size();) {
      if (parked[i].first <= reached) {
        resumed.push_back(std::move(parked[i].second));
        parked[i] = std::move(parked.back());
        parked.pop_back();
      } else {
        i++;
      }
    }
  }
  for (auto& queue : resumed) queue->resume();
}

bool EventState::park(uint64_t generation, std::shared_ptr<Queue> queue) {
  std::lock_guard<std::mutex> lock(mutex);
  if (reached >= generation) return true;
  parked.emplace_back(generation, std::move(queue));
  return false;
}

void HostEvent::define(Napi::Env env, Napi::Object exports) {
  exports["HostEvent"] = DefineClass(env, "HostEvent",
                                     {
                                         InstanceMethod<&HostEvent::query>("query"),
                                         InstanceMethod<&HostEvent::elapsed>("elapsed"),
                                         InstanceMethod<&HostEvent::destroy>("destroy"),
                                     });
}

HostEvent::HostEvent(const Napi::CallbackInfo& info) : Napi::ObjectWrap<HostEvent>(info) {}

Napi::Value HostEvent::query(const Napi::CallbackInfo& info) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return Napi::Boolean::New(info.Env(), state_->reached >= state_->recorded);
}

// elapsed(end): milliseconds from this event to end, both reached; CUDA_ERROR_NOT_READY otherwise.
Napi::Value HostEvent::elapsed(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto end = Unwrap(info[0].As<Napi::Object>())->state_;
  if (end == state_) return Napi::Number::New(env, 0);
  std::scoped_lock lock(state_->mutex, end->mutex);
  if (state_->reached < state_->recorded || end->reached < end->recorded || !state_->recorded ||
      !end->recorded)
    Addon::of(env).throwCuda(env, cu::kErrorNotReady, "cuEventElapsedTime");
  std::chrono::duration<double, std::milli> ms = end->when - state_->when;
  return Napi::Number::New(env, ms.count());
}

Napi::Value HostEvent::destroy(const Napi::CallbackInfo& info) { return info.Env().Undefined(); }

}  // namespace rxcuda::host
