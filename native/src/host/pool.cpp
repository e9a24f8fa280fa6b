#include "pool.hpp"

#include <thread>

#include "queue.hpp"

namespace rxcuda::host {

std::shared_ptr<Pool> Pool::create(size_t size) {
  return std::shared_ptr<Pool>(new Pool(size));
}

void Pool::reserve() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (threads_ == 0) grow(lock, true);
}

void Pool::schedule(std::shared_ptr<Queue> queue) {
  std::unique_lock<std::mutex> lock(mutex_);
  queues_.push_back(std::move(queue));
  if (idle_ > 0) ready_.notify_one();
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
      lock.unlock();
      queue->runSome(*this);
      queue.reset();
      lock.lock();
      continue;
    }
    if (closed_) break;
    idle_++;
    ready_.wait(lock);
    idle_--;
  }
  threads_--;
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
