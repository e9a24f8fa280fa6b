// The host backend's stream: the stream commands of runtime/stream-commands.hpp, as the CUDA
// StreamObject's, executed in order by the environment's pool threads (host/queue.hpp,
// host/pool.hpp) on host memory.
#pragma once
#include <napi.h>

#include <memory>

#include "device.hpp"
#include "pool.hpp"
#include "queue.hpp"
#include "../runtime/device-thread.hpp"
#include "../runtime/stream-commands.hpp"

namespace rxcuda::host {

class HostStream final : public Napi::ObjectWrap<HostStream>, public StreamCommands {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit HostStream(const Napi::CallbackInfo& info);  // new HostStream(device, flags, priority)
  ~HostStream() override;

  // The stream a handle names (the handle is the queue's address), for kernel launches.
  static Queue* fromHandle(uint64_t handle) { return reinterpret_cast<Queue*>(handle); }

  // StreamCommands (runtime/stream-commands.hpp)
  RXCUDA_STREAM_COMMANDS(RXCUDA_STREAM_COMMAND_OVERRIDE)

 private:


  // The stream's failed submission (as a device thread's on a GPU, see device-thread.hpp): set on
  // the pool thread when it reaches an injected failure; the stream's later work skips its effect.
  struct Failure {
    std::atomic<int32_t> failed{0};
    int32_t next = 0;  // main thread: the next device work fails with this (failNext)
  };

  void pushNotify(Napi::Env env, const Napi::Value& id);
  // `work` as this stream's queued device work, `call` naming it: skipped once the device has a
  // fault (HostDevice::fault) or the stream a failed submission; failed itself when one is injected.
  // `blocks`: user code that may block for long (a host function, Queue::pushBlocking).
  template <class Work>
  void pushWork(const char* call, Work work, bool blocks = false) {
    if (int32_t code = failure_->next) {
      failure_->next = 0;
      queue_->push([failure = failure_, failures = failures_, queue = queue_.get(), code, call] {
        int32_t expected = 0;
        if (failure->failed.compare_exchange_strong(expected, code))
          failures->announce(reinterpret_cast<cu::Stream>(queue), code, call);
      });
      return;
    }
    if (blocks)
      queue_->pushBlocking(unlessFaulted(std::move(work)));
    else
      queue_->push(unlessFaulted(std::move(work)));
  }
  template <class Work>
  Queue::Command unlessFaulted(Work work) const {
    return [fault = fault_, failure = failure_, work = std::move(work)] {
      if (!fault->load(std::memory_order_acquire) && !failure->failed.load(std::memory_order_acquire)) work();
    };
  }
  // Counts the stream out of its environment's open streams, once.
  void forget();

  std::shared_ptr<Pool> pool_;  // counts this stream among its open ones until forget()
  std::shared_ptr<Queue> queue_;
  HostDevice::Fault fault_;  // the device's: queued work after a fault skips its effect
  std::shared_ptr<Failure> failure_ = std::make_shared<Failure>();
  std::shared_ptr<SubmitFailures> failures_;  // the environment's, outliving it with this work
  int priority_ = 0;
  unsigned flags_ = 0;
};

}  // namespace rxcuda::host
