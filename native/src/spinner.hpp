// The low-latency end of the completion road: a thread that watches words of pinned memory for
// the values streams write there (cuStreamWriteValue32, or the host backend's equivalent) and
// sends each completion the moment it sees it, instead of waiting for the driver's host-callback
// thread. It busies one core while something is watched, each watch for a bounded time, and for
// kLinger after the last one (so that back-to-back waits find it awake instead of paying a thread
// wake-up); a watch that times out is sent with kGaveUp, and JavaScript falls back on a
// notification behind the same write.
#pragma once
#include <napi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "completion.hpp"

namespace rxcuda {

class Spinner {
 public:
  static constexpr int32_t kGaveUp = -1;
  static constexpr std::chrono::microseconds kLinger{200};

  Spinner();
  ~Spinner();  // stops and joins the thread; watches still open are sent as given up

  // Sends `record` once the word at `address` reaches `value` (wrap-safe), or after `limit`.
  void watch(const volatile uint32_t* address, uint32_t value, Completion::Record* record,
             std::chrono::microseconds limit);

 private:
  struct Watch {
    const volatile uint32_t* address;
    uint32_t value;
    Completion::Record* record;
    std::chrono::steady_clock::time_point deadline;
  };
  void run();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<Watch> incoming_;
  std::atomic<bool> hasIncoming_{false};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// watch(id, address, value, microseconds): see Spinner::watch; the id comes back through the
// completion road with status 0 (seen) or -1 (given up).
void defineSpinner(Napi::Env env, Napi::Object exports);

}  // namespace rxcuda
