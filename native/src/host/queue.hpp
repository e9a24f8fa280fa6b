// The host backend's stream: a worker thread that executes commands in the order they were
// enqueued, as a CUDA stream executes device work. Commands are plain C++ (no Napi, no JS).
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace rxcuda::host {

class Queue : public std::enable_shared_from_this<Queue> {
 public:
  using Command = std::function<void()>;

  // Starts the worker; the queue lives until it is closed and its last command has run.
  static std::shared_ptr<Queue> start();

  void push(Command command);
  // True when every command enqueued so far has run.
  bool idle() const { return done_.load() == pushed_.load(); }
  // No more commands; the worker finishes what is queued, then exits. Never waits.
  void close();

 private:
  Queue() = default;
  void run();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Command> commands_;
  bool closing_ = false;
  std::atomic<uint64_t> pushed_{0}, done_{0};
};

}  // namespace rxcuda::host
