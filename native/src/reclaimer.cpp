#include "reclaimer.hpp"

#include "cuda/driver.hpp"

namespace rxcuda {

Reclaimer::Reclaimer() : queue_(std::make_shared<Queue>()) {}

Reclaimer::~Reclaimer() {
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->stopping = true;
  }
  queue_->ready.notify_one();
}

void Reclaimer::release(cu::Context ctx, Kind kind, void* handle) {
  if (!started_) {  // the first release starts the thread: most environments never need one
    std::thread(&Reclaimer::run, queue_).detach();
    started_ = true;
  }
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->items.push_back({ctx, kind, handle});
  }
  queue_->ready.notify_one();
}

void Reclaimer::run(std::shared_ptr<Queue> queue) {
  const cu::Driver& d = cu::driver();
  for (;;) {
    Item item;
    {
      std::unique_lock<std::mutex> lock(queue->mutex);
      queue->ready.wait(lock, [&] { return queue->stopping || !queue->items.empty(); });
      if (queue->items.empty()) return;
      item = queue->items.front();
      queue->items.pop_front();
    }
    // A failure here has nobody to report to, and leaves nothing worse than the memory or module
    // held until the context goes (a sticky error, say, after which the context is unusable).
    if (cu::call(d.cuCtxSetCurrent, item.ctx) != cu::kSuccess) continue;
    if (item.kind == Kind::kPinnedMemory)
      cu::call(d.cuMemFreeHost, item.handle);
    else
      cu::call(d.cuModuleUnload, static_cast<cu::Module>(item.handle));
  }
}

}  // namespace rxcuda
