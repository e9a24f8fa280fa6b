// The low-latency end of the completion queue: a thread that watches words of pinned memory for
// the values streams write there (cuStreamWriteValue32, or the host backend's equivalent) and
// sends each completion the moment it sees it, instead of waiting for the driver's host-callback
// thread. It busies one core while something is watched, each watch for a bounded time, and for
// kLinger after the last one (so that back-to-back waits find it awake instead of paying a thread
// wake-up); a watch that times out is sent with kGaveUp, and JavaScript falls back on a
// completion point behind the same place. The main thread looks at the word too, so a seen watch
// is sent without waking it (it takes the write itself, and would only pay for the wake-up); one
// wake-up hands such records over when the thread idles (or kQuietAtMost are waiting).
// It also watches CUDA events (cuEventQuery), for a pipeline's values (by default), and words a
// pipeline's lanes write (word watches, for measuring: no driver call of the watcher's, whose
// queries compete with the main thread's driver calls; README, "Small values"). Those are sent
// with a wake-up: the main thread does not look at them.
#pragma once
#include <napi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "completion.hpp"
#include "../driver/types.hpp"

namespace rxcuda {

class Spinner {
 public:
  static constexpr int32_t kGaveUp = -1;
  static constexpr std::chrono::microseconds kLinger{200};
  // Quiet records handed over with one wake-up at the latest (their handlers wait in JavaScript).
  static constexpr int kQuietAtMost = 64;

  Spinner();
  ~Spinner();  // stops and joins the thread; watches still open are sent as given up

  // Sends `record` once the word at `address` reaches `value` (wrap-safe), or after `limit`.
  // Quietly (no wake-up, see above) where the main thread looks at the word too; else with one.
  void watch(const volatile uint32_t* address, uint32_t value, Completion::Record* record,
             std::chrono::microseconds limit, bool quiet = true);
  // Sends `record` once `event` (of context `ctx`) has completed, or after `limit`; a failed query
  // is sent as given up too (the fallback reports the error). The event must live until then.
  // With `stream`, the stream it was recorded on: the events of one stream complete in the order
  // they were recorded, so a pass queries only the oldest not yet seen of each stream.
  void watchEvent(cu::Event event, cu::Context ctx, Completion::Record* record,
                  std::chrono::microseconds limit, cu::Stream stream = nullptr);
  // The pause between two passes over watched events in which none completed, busy (no sleep):
  // each driver query competes with the other threads' driver calls (a graph launch on the main
  // thread took twice as long while the watcher queried back to back). By default (a negative
  // value) it follows the events: a sixteenth of the time the last ones took from their watch to
  // their completion (a moving average), at most kMaxPause, so a completion is seen about 3 %
  // later than it happens. 0 queries back to back; a positive value pauses that long (for
  // measurements). Word watches are never paused for: a pass with one does not pause.
  void setPause(std::chrono::nanoseconds pause) { pauseNs_.store(pause.count(), std::memory_order_relaxed); }
  static constexpr std::chrono::nanoseconds kMaxPause{20000};

 private:
  struct Watch {
    const volatile uint32_t* address;  // null for an event
    uint32_t value;
    cu::Event event;
    cu::Context ctx;
    cu::Stream stream;  // an event's stream, or null (queried whatever came before it)
    bool quiet;         // a seen word is sent without a wake-up (the main thread looks at it too)
    Completion::Record* record;
    std::chrono::steady_clock::time_point added;
    std::chrono::steady_clock::time_point deadline;
  };
  enum class Seen { no, yes, failed };
  void run();
  void add(const Watch& w);
  Seen look(const Watch& w);
  // Waits the pause (see setPause), or until a watch comes, without a driver call.
  void pauseBriefly();
  // Sends a seen watch's record, leaving the wake-up to wakeQuiet().
  void sendSeen(const Watch& w);
  void wakeQuiet();

  Completion* quiet_ = nullptr;  // the spinner thread's: a completion queue with records sent quietly
  int quietCount_ = 0;
  cu::Context current_ = nullptr;  // the spinner thread's current context
  double typicalNs_ = 0;  // the spinner thread's: how long events took from watch to completion, averaged

  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<Watch> incoming_;
  std::atomic<bool> hasIncoming_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> pauseNs_{-1};
  std::thread thread_;
};

// watch(id, address, value, microseconds): see Spinner::watch; the id comes back
// through the completion queue with status 0 (seen) or -1 (given up).
void defineSpinner(Napi::Env env, Napi::Object exports);

}  // namespace rxcuda
