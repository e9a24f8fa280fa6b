#include "queue.hpp"

namespace rxcuda::host {

std::shared_ptr<Queue> Queue::start() {
  std::shared_ptr<Queue> queue(new Queue());
  // The worker holds the queue until it has drained it after close().
  std::thread([queue] { queue->run(); }).detach();
  return queue;
}

void Queue::push(Command command) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    commands_.push_back(std::move(command));
    pushed_.fetch_add(1);
  }
  ready_.notify_one();
}

void Queue::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  ready_.notify_one();
}

void Queue::run() {
  for (;;) {
    Command command;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return closing_ || !commands_.empty(); });
      if (commands_.empty()) return;  // closing, and everything has run
      command = std::move(commands_.front());
      commands_.pop_front();
    }
    command();
    done_.fetch_add(1);
  }
}

}  // namespace rxcuda::host
