// The threads that run the host backend's streams: a few per environment, serving any number of
// streams (host/queue.hpp), so that a stream costs memory, not an OS thread.
//
// Two kinds of command can hold a thread for long, and a fixed pool would then deadlock (stream B
// waits for an event that stream A records, while every thread is held by waits like B's):
// - A wait for an event does not hold a thread at all: the stream parks itself on the event, and
//   the command that reaches the event puts it back in the pool's ready list.
// - A host function (user code: it may wait on a word, as a CUDA host function may spin) cannot
//   be parked. While one runs, its thread does not count as one of the pool's: if streams are
//   ready and no thread is free, another thread starts in its place, and the extra threads end
//   once the host functions have returned. Threads are then bounded by the pool's size plus the
//   host functions blocked at once, which a user chose to block; as with CUDA, whose driver runs
//   every host function of a context on one thread, a host function should not wait for long.
//
// A thread that runs out of work looks for more a while (kSpin in pool.cpp) before it parks, one
// thread at a time, and a stream made ready wakes a parked thread only when no thread is looking
// (or the looking one has not run for a while): the main thread's commands, which come a few
// microseconds apart while a pipeline runs, then cost no system call to wake a thread, and no
// preemption of the main thread by a woken one.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>

namespace rxcuda::host {

class Queue;

class Pool : public std::enable_shared_from_this<Pool> {
 public:
  // `size` threads run commands at once, not counting those inside host functions.
  static std::shared_ptr<Pool> create(size_t size);

  // Makes sure one thread is there to run commands; throws std::system_error when none can start.
  void reserve();
  // Puts a stream with commands to run in the ready list (any thread; never blocks for long).
  void schedule(std::shared_ptr<Queue> queue);
  // No environment is left to add streams: threads end once nothing is ready. Work already
  // queued (and streams parked on events) still runs, as on a CUDA stream.
  void close();

  // For the span of a host function on a pool thread: the thread is not counted as the pool's.
  class Blocking {
   public:
    explicit Blocking(Pool& pool);
    ~Blocking();
    Blocking(const Blocking&) = delete;
    Blocking& operator=(const Blocking&) = delete;

   private:
    Pool& pool_;
  };

  // Counts a stream in, unless `most` are open already (main thread; false then).
  bool open(size_t most);
  // Counts a stream out.
  void closed();

 private:
  explicit Pool(size_t size) : size_(size) {}
  void work();
  // Looks for a ready stream without the lock for up to kSpin; true when one came.
  bool spin();
  // Starts a thread when streams are ready, none is free and fewer than size_ run commands.
  // Called with mutex_ held; a thread that cannot start leaves the work to those that run.
  void grow(std::unique_lock<std::mutex>& lock, bool mustStart);

  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::shared_ptr<Queue>> queues_;  // ready to run, oldest first
  const size_t size_;
  size_t threads_ = 0;  // started and not ended
  size_t idle_ = 0;     // waiting for a ready stream, parked or looking
  size_t parked_ = 0;   // of those, parked on ready_
  size_t spinning_ = 0;  // of those, looking for one (at most one thread)
  std::atomic<size_t> readyCount_{0};  // queues_.size(), for the looking thread
  std::atomic<int64_t> lookedAt_{0};   // when it last looked (steady_clock, ns)
  size_t blocked_ = 0;  // inside a host function
  bool closed_ = false;
  size_t streams_ = 0;  // open streams (main thread only)
};

}  // namespace rxcuda::host
