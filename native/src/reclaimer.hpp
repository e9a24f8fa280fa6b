// Releases that may wait for the whole device: cuMemFreeHost and cuModuleUnload synchronize with
// work on every stream of the context. Made on the main thread, such a wait deadlocks as soon as a
// stream is held by a host step (the step needs the main thread to run). The reclaimer makes them
// on a thread of its own, in the order they were asked for; the main thread never waits for it.
#pragma once
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "cuda/types.hpp"

namespace rxcuda {

class Reclaimer {
 public:
  enum class Kind { kPinnedMemory, kModule };

  Reclaimer();  // the thread starts with the first release
  // Lets the thread finish what was asked for, without waiting for it (that may take as long as
  // the device's longest work; held streams of a vanished environment never finish).
  ~Reclaimer();

  // Frees `handle` (pinned memory or a module) in context `ctx`, once the driver allows. Called
  // on the main thread only.
  void release(cu::Context ctx, Kind kind, void* handle);

 private:
  struct Item {
    cu::Context ctx;
    Kind kind;
    void* handle;
  };
  struct Queue {
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<Item> items;
    bool stopping = false;
  };
  static void run(std::shared_ptr<Queue> queue);

  std::shared_ptr<Queue> queue_;
  bool started_ = false;
};

}  // namespace rxcuda
