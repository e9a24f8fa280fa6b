// The host backend's event: a generation counter that a stream's worker completes in order.
#pragma once
#include <napi.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

namespace rxcuda::host {

struct EventState {
  std::mutex mutex;
  std::condition_variable completed;
  uint64_t recorded = 0;  // generations enqueued (main thread)
  uint64_t reached = 0;   // generations the stream has passed (worker)
  std::chrono::steady_clock::time_point when;

  void reach(uint64_t generation);
  void waitFor(uint64_t generation);
};

class HostEvent : public Napi::ObjectWrap<HostEvent> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit HostEvent(const Napi::CallbackInfo& info);  // new HostEvent(device, flags)
  std::shared_ptr<EventState> state() const { return state_; }

 private:
  Napi::Value query(const Napi::CallbackInfo& info);
  Napi::Value elapsed(const Napi::CallbackInfo& info);
  Napi::Value destroy(const Napi::CallbackInfo& info);

  std::shared_ptr<EventState> state_ = std::make_shared<EventState>();
};

}  // namespace rxcuda::host
