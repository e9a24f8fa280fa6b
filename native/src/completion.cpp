#include "completion.hpp"

#include <algorithm>
#include <thread>

namespace rxcuda {

Completion* Completion::open(Napi::Env env, Napi::Function onDrain, Napi::Uint32Array ids,
                             Napi::Int32Array statuses) {
  if (ids.ElementLength() == 0 || statuses.ElementLength() == 0) {
    Napi::TypeError::New(env, "Expected completion arrays with room for at least one record")
        .ThrowAsJavaScriptException();
    return nullptr;
  }
  auto* road = new Completion();
  road->env_ = env;
  road->onDrain_ = Napi::Persistent(onDrain);
  // Written on the main thread only, between drains; held so their memory stays where it is.
  road->idsRef_ = Napi::Persistent(ids);
  road->statusesRef_ = Napi::Persistent(statuses);
  road->ids_ = ids.Data();
  road->statuses_ = statuses.Data();
  road->capacity_ = std::min(ids.ElementLength(), statuses.ElementLength());
  napi_value name = Napi::String::New(env, "rxcuda:completion");
  NAPI_THROW_IF_FAILED(env,
                       napi_create_threadsafe_function(env, nullptr, nullptr, name, 0, 1, nullptr,
                                                       nullptr, road, &Completion::onWake,
                                                       &road->wake_),
                       nullptr);
  // Unreferenced until something is pending, so an idle process exits on its own.
  napi_unref_threadsafe_function(env, road->wake_);
  NAPI_THROW_IF_FAILED(env, napi_add_env_cleanup_hook(env, &Completion::onEnvCleanup, road),
                       nullptr);
  return road;
}

Completion::Record* Completion::record(uint32_t id) {
  auto* r = new Record();
  r->road = this;
  r->id = id;
  refs_.fetch_add(1);
  track(+1);
  return r;
}

void Completion::cancel(Record* r) {
  delete r;
  track(-1);
  release();
}

void Completion::track(int delta) {
  uint32_t before = pending_;
  pending_ += delta;
  // The loop stays alive exactly while completions are owed to JavaScript.
  if (before == 0 && pending_ > 0) napi_ref_threadsafe_function(env_, wake_);
  if (before > 0 && pending_ == 0) napi_unref_threadsafe_function(env_, wake_);
}

void Completion::push(Record* r, int32_t status) { deliver(r, status, true); }

void Completion::pushQuietly(Record* r, int32_t status) { deliver(r, status, false); }

void Completion::deliver(Record* r, int32_t status, bool wakeNow) {
  Completion* road = r->road;
  r->status = status;
  road->senders_.fetch_add(1);
  if (road->closed_.load()) {
    // The environment is gone: nobody is left to tell.
    road->senders_.fetch_sub(1);
    delete r;
    road->release();
    return;
  }
  Record* head = road->head_.load(std::memory_order_relaxed);
  do {
    r->next = head;
  } while (!road->head_.compare_exchange_weak(head, r, std::memory_order_release,
                                              std::memory_order_relaxed));
  if (wakeNow) road->sendWake();
  road->senders_.fetch_sub(1);
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
  push(static_cast<Record*>(userData), status);
}

void Completion::hostFunction(void* userData) { push(static_cast<Record*>(userData), 0); }

void Completion::onWake(napi_env, napi_value, void* context, void*) {
  auto* road = static_cast<Completion*>(context);
  road->wakePending_.store(false);
  road->drain(true);
}

void Completion::drain(bool callJs) {
  Record* list = head_.exchange(nullptr, std::memory_order_acquire);
  if (!list) return;
  // The stack holds them newest first: turn it around, so they are handed over in push order.
  Record* fifo = nullptr;
  int n = 0;
  while (list) {
    Record* next = list->next;
    list->next = fifo;
    fifo = list;
    list = next;
    n++;
  }
  track(-n);
  if (!callJs) {
    dropAll(fifo);
    return;
  }
  Napi::Env env(env_);
  Napi::HandleScope scope(env);
  while (fifo) {
    size_t count = 0;
    for (; fifo && count < capacity_; count++) {
      ids_[count] = fifo->id;
      statuses_[count] = fifo->status;
      Record* next = fifo->next;
      delete fifo;
      refs_.fetch_sub(1);  // the environment's own ref keeps this object alive
      fifo = next;
    }
    try {
      // Called from the threadsafe function's dispatch, so microtasks (resolved promises) run after.
      onDrain_.Call(env.Global(), {Napi::Number::New(env, static_cast<double>(count))});
    } catch (const Napi::Error& error) {
      // JavaScript threw past its own handlers: the rest is dropped, the error reported as uncaught.
      dropAll(fifo);
      error.ThrowAsJavaScriptException();
      return;
    }
  }
}

void Completion::dropAll(Record* list) {
  while (list) {
    Record* next = list->next;
    delete list;
    refs_.fetch_sub(1);
    list = next;
  }
}

void Completion::onEnvCleanup(void* arg) {
  auto* road = static_cast<Completion*>(arg);
  road->closed_.store(true);
  // A foreign thread may be between its check of closed_ and its wake-up: let it finish. It never
  // waits on anything, so this is a few instructions at most.
  while (road->senders_.load() != 0) std::this_thread::yield();
  road->drain(false);
  road->onDrain_.Reset();
  road->idsRef_.Reset();
  road->statusesRef_.Reset();
  napi_release_threadsafe_function(road->wake_, napi_tsfn_abort);
  road->release();
}

void Completion::release() {
  if (refs_.fetch_sub(1) == 1) delete this;
}

}  // namespace rxcuda
