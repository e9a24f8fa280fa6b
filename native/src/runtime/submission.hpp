// An environment's device threads (runtime/device-thread.hpp): a few per device, each stream of
// the device given to one of them for its whole life, round robin; the streams by handle, for the
// launch fast paths that name a stream by its handle; and the failed submissions not yet told.
#pragma once
#include <napi.h>

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "device-thread.hpp"

namespace rxcuda {

class Submission {
 public:
  // How many device threads a device gets: RXCUDA_DEVICE_THREADS (1 to 16) where it is set, else
  // a quarter of the machine's cores, 1 to 4 (the driver took launches faster from up to 8 threads,
  // bench/study/submit-threads; each thread also busies a core while work comes).
  static unsigned threadsPerDevice();

  explicit Submission(Completion* notices) : failures_(std::make_shared<SubmitFailures>(notices)) {}
  ~Submission();  // each thread submits what it holds, then ends

  // Gives an owned stream of `ctx` to a device thread; the state lives until release().
  LaneState* open(cu::Stream stream, cu::Context ctx);
  // The stream's device thread destroys it behind its queued work.
  void release(LaneState* lane);
  // The state of a stream given to a device thread, or null (a foreign stream, or none).
  LaneState* laneOf(cu::Stream stream) const {
    auto it = lanes_.find(stream);
    return it == lanes_.end() ? nullptr : it->second;
  }
  // Waits until every device thread has submitted what it was given (main thread).
  void drain() {
    for (const auto& thread : threads_) {
      if (thread->drained()) continue;
      waits_++;
      thread->drain();
    }
  }
  // How many times a main-thread driver call found a device thread still holding commands, and
  // waited for it (none on a hot path).
  uint64_t waits() const { return waits_; }
  size_t threads() const { return threads_.size(); }
  // Where failed submissions are announced: the device threads', and host-device streams' (shared).
  const std::shared_ptr<SubmitFailures>& failures() const { return failures_; }

 private:
  struct DeviceThreads {
    cu::Context ctx;
    std::vector<DeviceThread*> threads;
    size_t next = 0;
  };

  std::shared_ptr<SubmitFailures> failures_;  // outlives the threads (declared first)
  std::vector<std::unique_ptr<DeviceThread>> threads_;
  std::vector<DeviceThreads> devices_;
  std::unordered_map<cu::Stream, LaneState*> lanes_;
  uint64_t waits_ = 0;
};

// takeSubmitFailures() -> [{ handle, code, call }]: failed submissions not yet told.
// submissionCounts() -> { threads, waits }: the environment's device threads, and how many times
// the main thread waited for one (see Submission::waits).
void defineSubmission(Napi::Env env, Napi::Object exports);

}  // namespace rxcuda
