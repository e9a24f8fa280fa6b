#include "completion.hpp"

#include <algorithm>
#include <thread>

namespace rxcuda {
namespace {

// Diagnostics only, read by tests: records and completion queues outlive the environment that
// made them (a foreign thread frees them after a worker has gone), so only process-wide counts can
// show that all of them were given back. Nothing decides anything by them.
std::atomic<int64_t> liveRecords{0}, liveQueues{0};

}  // namespace

Completion* Completion::open(Napi::Env env, Napi::Function onDrain, Napi::Uint32Array ids,
                             Napi::Int32Array statuses) {
  if (ids.ElementLength() == 0 || statuses.ElementLength() == 0) {
    Napi::TypeError::New(env, "Expected completion arrays with room for at least one record")
        .ThrowAsJavaScriptException();
    return nullptr;
  }
  auto* queue = new Completion();
  liveQueues.fetch_add(1, std::memory_order_relaxed);
  queue->env_ = env;
  queue->onDrain_ = Napi::Persistent(onDrain);
  // Written on the main thread only, between drains; held so their memory stays where it is.
  queue->idsRef_ = Napi::Persistent(ids);
  queue->statusesRef_ = Napi::Persistent(statuses);
  queue->ids_ = ids.Data();
  queue->statuses_ = statuses.Data();
  queue->capacity_ = std::min(ids.ElementLength(), statuses.ElementLength());
  napi_value name = Napi::String::New(env, "rxcuda:completion");
  NAPI_THROW_IF_FAILED(env,
                       napi_create_threadsafe_function(env, nullptr, nullptr, name, 0, 1, nullptr,
                                                       nullptr, queue, &Completion::onWake,
                                                       &queue->wake_),
                       nullptr);
  // Unreferenced until something is pending, so an idle process exits on its own.
  napi_unref_threadsafe_function(env, queue->wake_);
  NAPI_THROW_IF_FAILED(env, napi_add_env_cleanup_hook(env, &Completion::onEnvCleanup, queue),
                       nullptr);
  return queue;
}

Completion::Record* Completion::record(uint32_t id) {
  auto* r = new Record();
  r->queue = this;
  r->id = id;
  liveRecords.fetch_add(1, std::memory_order_relaxed);
  refs_.fetch_add(1);
  track(+1);
  return r;
}

void Completion::notice(int32_t status) {
  auto* r = new Record();
  r->queue = this;
  r->tracked = false;
  liveRecords.fetch_add(1, std::memory_order_relaxed);
  refs_.fetch_add(1);
  push(r, status);
}

void Completion::cancel(Record* r) {
  track(-1);
  dispose(r);
}

void Completion::track(int delta) {
  uint32_t before = pending_;
  pending_ += delta;
  // The loop stays alive exactly while completions are pending for JavaScript.
  if (before == 0 && pending_ > 0) napi_ref_threadsafe_function(env_, wake_);
  if (before > 0 && pending_ == 0) napi_unref_threadsafe_function(env_, wake_);
}

void Completion::push(Record* r, int32_t status) { deliver(r, status, true); }

void Completion::pushQuietly(Record* r, int32_t status) { deliver(r, status, false); }

void Completion::deliver(Record* r, int32_t status, bool wakeNow) {
  Completion* queue = r->queue;
  r->status = status;
  queue->senders_.fetch_add(1);
  if (queue->closed_.load()) {
    // The environment is gone: nobody is left to tell.
    queue->senders_.fetch_sub(1);
    queue->dispose(r);
    return;
  }
  Record* head = queue->head_.load(std::memory_order_relaxed);
  do {
    r->next = head;
  } while (!queue->head_.compare_exchange_weak(head, r, std::memory_order_release,
                                              std::memory_order_relaxed));
  if (wakeNow) queue->sendWake();
  queue->senders_.fetch_sub(1);
}

void Completion::wake() {
  senders_.fetch_add(1);
  if (!closed_.load()) sendWake();
  senders_.fetch_sub(1);
}

void Completion::sendWake() {
  // One wake-up serves every record pushed before the main thread starts draining.
  if (!wakePending_.exchange(true))
    napi_call_threadsafe_function(wake_, nullptr, napi_tsfn_nonblocking);
}

void Completion::retain() { refs_.fetch_add(1); }

void Completion::streamCallback(cu::Stream, cu::Result status, void* userData) {
  auto* r = static_cast<Record*>(userData);
  push(r, status != cu::kSuccess ? status : r->failure);
}

void Completion::hostFunction(void* userData) {
  auto* r = static_cast<Record*>(userData);
  push(r, r->failure);
}

void Completion::onWake(napi_env env, napi_value, void* context, void*) {
  // Without an environment, Node is finalizing the threadsafe function after the cleanup hook:
  // the queue may be gone already, and there is nobody to tell.
  if (!env) return;
  auto* queue = static_cast<Completion*>(context);
  queue->wakePending_.store(false);
  if (queue->closed_.load()) return;
  queue->drain(env);
}

Completion::Record* Completion::takeAll(int& n) {
  Record* list = head_.exchange(nullptr, std::memory_order_acquire);
  // The stack holds them newest first: turn it around, so they are handed over in push order.
  Record* fifo = nullptr;
  n = 0;
  while (list) {
    Record* next = list->next;
    list->next = fifo;
    fifo = list;
    list = next;
    if (fifo->tracked) n++;
  }
  return fifo;
}

// Node-API's C calls, not node-addon-api's: this runs from a threadsafe function's dispatch, where
// no C++ exception may escape, and while a worker terminates or exits every call into JavaScript
// fails (node-addon-api would then build an Error it cannot create, a fatal error).
void Completion::drain(napi_env env) {
  int n = 0;
  Record* fifo = takeAll(n);
  if (!fifo) return;
  track(-n);
  napi_handle_scope scope = nullptr;
  if (napi_open_handle_scope(env, &scope) != napi_ok) {
    dropAll(fifo);
    return;
  }
  napi_value fn = nullptr, recv = nullptr;
  bool open = napi_get_reference_value(env, onDrain_, &fn) == napi_ok && fn &&
              napi_get_undefined(env, &recv) == napi_ok;
  while (fifo && open) {
    size_t count = 0;
    for (; fifo && count < capacity_; count++) {
      ids_[count] = fifo->id;
      statuses_[count] = fifo->status;
      Record* next = fifo->next;
      dispose(fifo);
      fifo = next;
    }
    napi_value argv = nullptr;
    // Called from the threadsafe function's dispatch, so microtasks (resolved promises) run after.
    open = napi_create_double(env, static_cast<double>(count), &argv) == napi_ok &&
           napi_call_function(env, recv, fn, 1, &argv, nullptr) == napi_ok;
  }
  // JavaScript threw past its own handlers (the exception stays pending, and Node reports it as
  // uncaught), or the environment is shutting down: nobody will hear of the rest.
  dropAll(fifo);
  napi_close_handle_scope(env, scope);
}

void Completion::dropAll(Record* list) {
  while (list) {
    Record* next = list->next;
    dispose(list);
    list = next;
  }
}

void Completion::dispose(Record* r) {
  delete r;
  liveRecords.fetch_sub(1, std::memory_order_relaxed);
  // The environment's own ref outlives every drain, so this never deletes the queue while draining.
  release();
}

void Completion::onEnvCleanup(void* arg) {
  auto* queue = static_cast<Completion*>(arg);
  queue->closed_.store(true);
  // A foreign thread may be between its check of closed_ and its wake-up: let it finish. It never
  // waits on anything, so this is a few instructions at most.
  while (queue->senders_.load() != 0) std::this_thread::yield();
  int n = 0;
  queue->dropAll(queue->takeAll(n));
  queue->pending_ = 0;
  queue->onDrain_.Reset();
  queue->idsRef_.Reset();
  queue->statusesRef_.Reset();
  napi_release_threadsafe_function(queue->wake_, napi_tsfn_abort);
  queue->release();
}

void Completion::release() {
  if (refs_.fetch_sub(1) == 1) {
    delete this;
    liveQueues.fetch_sub(1, std::memory_order_relaxed);
  }
}

Completion::Counts Completion::counts() {
  return {liveRecords.load(std::memory_order_relaxed), liveQueues.load(std::memory_order_relaxed)};
}

}  // namespace rxcuda
