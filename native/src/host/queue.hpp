// The host backend's stream: commands executed in the order they were enqueued, as a CUDA stream
// executes device work, by the threads of a Pool (host/pool.hpp), never two at once. Commands are
// plain C++ (no Napi, no JS).
#pragma once
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace rxcuda::host {

class Pool;
struct EventState;

class Queue : public std::enable_shared_from_this<Queue> {
 public:
  using Command = std::function<void()>;

  // A queue served by pool; it lives while its owner or its pending work holds it.
  static std::shared_ptr<Queue> create(std::shared_ptr<Pool> pool);

  void push(Command command);
  // A command that runs user code, which may block for long (a host function).
  void pushBlocking(Command command);
  // Holds later commands until event has reached generation, without holding a thread.
  void pushWait(std::shared_ptr<EventState> event, uint64_t generation);
  // True when every command enqueued so far has run.
  bool idle() const { return done_.load() == pushed_.load(); }

  // On a pool thread: runs the next few commands, then hands the queue back to the pool (or
  // leaves it parked on an event, or idle).
  void runSome(Pool& pool);
  // The event this queue is parked on has been reached (any thread).
  void resume();

 private:
  struct Entry {
    Command run;
    std::shared_ptr<EventState> event;  // set for a wait
    uint64_t generation = 0;
    bool blocks = false;
  };

  explicit Queue(std::shared_ptr<Pool> pool) : pool_(std::move(pool)) {}
  void add(Entry entry);

  const std::shared_ptr<Pool> pool_;
  std::mutex mutex_;
  std::deque<Entry> entries_;
  bool scheduled_ = false;  // in the pool's ready list, running, or parked on an event
  std::atomic<uint64_t> pushed_{0}, done_{0};
};

}  // namespace rxcuda::host
