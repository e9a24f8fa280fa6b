// The host backend's event: a generation counter that a stream's commands complete in order, and
// the streams parked until it reaches a generation.
#pragma once
#include <napi.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace rxcuda::host {

class Queue;

struct EventState {
  std::mutex mutex;
  uint64_t recorded = 0;  // generations enqueued (main thread)
  uint64_t reached = 0;   // generations the stream has passed (pool thread)
  std::chrono::steady_clock::time_point when;
  std::vector<std::pair<uint64_t, std::shared_ptr<Queue>>> parked;  // waiting for a generation

  // Passes generation, and resumes the queues parked until it.
  void reach(uint64_t generation);
  // True when generation has been reached; else parks queue until it is, and returns false.
  bool park(uint64_t generation, std::shared_ptr<Queue> queue);
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
