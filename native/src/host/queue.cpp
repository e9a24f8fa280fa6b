#include "queue.hpp"

#include "event.hpp"
#include "pool.hpp"
#include "spin.hpp"

namespace rxcuda::host {
namespace {

// Commands a queue runs before the other ready queues get a turn.
constexpr int kBatch = 64;

}  // namespace

std::shared_ptr<Queue> Queue::create(std::shared_ptr<Pool> pool) {
  return std::shared_ptr<Queue>(new Queue(std::move(pool)));
}

void Queue::push(Command command) { add({std::move(command), nullptr, 0, false}); }

void Queue::pushBlocking(Command command) { add({std::move(command), nullptr, 0, true}); }

void Queue::pushWait(std::shared_ptr<EventState> event, uint64_t generation) {
  add({nullptr, std::move(event), generation, false});
}

void Queue::add(Entry entry) {
  bool start;
  {
    lockSpinning(mutex_);
    std::lock_guard<std::mutex> lock(mutex_, std::adopt_lock);
    entries_.push_back(std::move(entry));
    pushed_.fetch_add(1);
    start = !scheduled_;
    scheduled_ = true;
  }
  if (start) pool_->schedule(shared_from_this());
}

void Queue::runSome(Pool& pool) {
  for (int n = 0; n < kBatch; n++) {
    Entry entry;
    {
      lockSpinning(mutex_);
      std::lock_guard<std::mutex> lock(mutex_, std::adopt_lock);
      if (entries_.empty()) {
        scheduled_ = false;
        return;
      }
      entry = std::move(entries_.front());
      entries_.pop_front();
    }
    if (entry.event) {
      // Parked: the thread that reaches the event resumes this queue, perhaps on another thread
      // at once, so nothing here touches it any more.
      if (!entry.event->park(entry.generation, shared_from_this())) return;
    } else if (entry.blocks) {
      Pool::Blocking blocking(pool);
      entry.run();
    } else {
      entry.run();
    }
    done_.fetch_add(1);
  }
  pool.schedule(shared_from_this());
}

void Queue::resume() {
  done_.fetch_add(1);  // the wait itself
  pool_->schedule(shared_from_this());
}

}  // namespace rxcuda::host
