#include "pool.hpp"

#include <chrono>
#include <thread>

#include "queue.hpp"
#include "spin.hpp"

namespace rxcuda::host {
namespace {

// How long a thread that ran out of work looks for more before it parks: about the gap between
// the commands of consecutive values of a pipeline, short enough that an idle process with open
// streams costs no CPU (as runtime/device-thread.cpp's submitting thread).
constexpr std::chrono::microseconds kSpin{50};
// A looking thread that has not looked for this long is not running (the cores are taken by
// threads that do not yield, such as a spinning watcher and an event loop that turns): a stream
// made ready then wakes a parked thread all the same, as if none were looking.
constexpr int64_t kStaleNs = 3000;

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Takes the pool's lock held by `lock` (unlocked) again, without blocking while it is briefly held.
void relock(std::unique_lock<std::mutex>& lock) {
  lockSpinning(*lock.mutex());
  lock = std::unique_lock<std::mutex>(*lock.release(), std::adopt_lock);
}

}  // namespace

std::shared_ptr<Pool> Pool::create(size_t size) {
  return std::shared_ptr<Pool>(new Pool(size));
}

void Pool::reserve() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (threads_ == 0) grow(lock, true);
}

void Pool::schedule(std::shared_ptr<Queue> queue) {
  lockSpinning(mutex_);
  std::unique_lock<std::mutex> lock(mutex_, std::adopt_lock);
  queues_.push_back(std::move(queue));
  readyCount_.store(queues_.size(), std::memory_order_release);
  // A looking thread that runs takes the first ready stream without a wake-up.
  if (parked_ > 0 && (queues_.size() > spinning_ ||
                      nowNs() - lookedAt_.load(std::memory_order_relaxed) > kStaleNs))
    ready_.notify_one();
  if (idle_ < queues_.size()) grow(lock, false);
}

void Pool::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  ready_.notify_all();
}

bool Pool::open(size_t most) {
  if (streams_ >= most) return false;
  streams_++;
  return true;
}

void Pool::closed() { streams_--; }

void Pool::grow(std::unique_lock<std::mutex>&, bool mustStart) {
  if (threads_ - blocked_ >= size_) return;
  try {
    // The thread holds the pool: an environment's pool outlives it until its work has run.
    std::thread([self = shared_from_this()] { self->work(); }).detach();
    threads_++;
  } catch (const std::system_error&) {
    // Out of threads: the pool's running threads take the work in turn.
    if (mustStart) throw;
  }
}

void Pool::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  bool look = true;  // looks for work a while before parking, unless it just did in vain
  for (;;) {
    // A thread started while another was in a host function ends when that one is back; a
    // stream made ready meanwhile may have counted on it, so an idle thread takes over.
    if (threads_ - blocked_ > size_) {
      if (!queues_.empty()) ready_.notify_one();
      break;
    }
    if (!queues_.empty()) {
      std::shared_ptr<Queue> queue = std::move(queues_.front());
      queues_.pop_front();
      readyCount_.store(queues_.size(), std::memory_order_relaxed);
      lock.unlock();
      queue->runSome(*this);
      queue.reset();
      relock(lock);
      look = true;
      continue;
    }
    if (closed_) break;
    idle_++;
    if (look && spinning_ == 0) {
      // Producers see spinning_ under the lock and leave this thread unwoken; it looks at
      // queues_ under the lock again before it parks, so no stream is missed.
      spinning_++;
      lookedAt_.store(nowNs(), std::memory_order_relaxed);
      lock.unlock();
      look = spin();
      relock(lock);
      spinning_--;
    } else {
      parked_++;
      ready_.wait(lock);
      parked_--;
      look = true;
    }
    idle_--;
  }
  threads_--;
}

bool Pool::spin() {
  // Yields rather than pauses: on a machine with few cores the main thread may want this core,
  // and it is what the looking thread waits for.
  int64_t until = nowNs() + std::chrono::nanoseconds(kSpin).count();
  while (readyCount_.load(std::memory_order_acquire) == 0) {
    int64_t now = nowNs();
    lookedAt_.store(now, std::memory_order_relaxed);
    if (now >= until) return false;
    std::this_thread::yield();
  }
  return true;
}

Pool::Blocking::Blocking(Pool& pool) : pool_(pool) {
  std::unique_lock<std::mutex> lock(pool_.mutex_);
  pool_.blocked_++;
  if (!pool_.queues_.empty() && pool_.idle_ == 0) pool_.grow(lock, false);
}

Pool::Blocking::~Blocking() {
  std::lock_guard<std::mutex> lock(pool_.mutex_);
  pool_.blocked_--;
}

}  // namespace rxcuda::host
