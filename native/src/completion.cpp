#include "completion.hpp"

#include <thread>
#include <vector>

namespace rxcuda {

Completion* Completion::open(Napi::Env env, Napi::Function onDrain) {
  auto* road = new Completion();
  road->env_ = env;
  road->onDrain_ = Napi::Persistent(onDrain);
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

void Completion::push(Record* r, int32_t status) {
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
  // One wake-up serves every record pushed before the main thread starts draining.
  if (!road->wakePending_.exchange(true))
    napi_call_threadsafe_function(road->wake_, nullptr, napi_tsfn_nonblocking);
  road->senders_.fetch_sub(1);
}

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
  std::vector<Record*> records;
  for (; list; list = list->next) records.push_back(list);
  if (records.empty()) return;
  size_t n = records.size();
  std::vector<uint32_t> ids(n);
  std::vector<int32_t> statuses(n);
  for (size_t i = 0; i < n; i++) {  // the stack holds them newest first
    Record* r = records[n - 1 - i];
    ids[i] = r->id;
    statuses[i] = r->status;
  }
  for (Record* r : records) delete r;
  track(-static_cast<int>(n));
  refs_.fetch_sub(static_cast<int>(n));  // the environment's own ref keeps this object alive
  if (!callJs) return;
  Napi::Env env(env_);
  Napi::HandleScope scope(env);
  auto idArray = Napi::Uint32Array::New(env, n);
  auto statusArray = Napi::Int32Array::New(env, n);
  std::copy(ids.begin(), ids.end(), idArray.Data());
  std::copy(statuses.begin(), statuses.end(), statusArray.Data());
  // Called from the threadsafe function's dispatch, so microtasks (resolved promises) run after.
  onDrain_.Call(env.Global(), {idArray, statusArray});
}

void Completion::onEnvCleanup(void* arg) {
  auto* road = static_cast<Completion*>(arg);
  road->closed_.store(true);
  // A foreign thread may be between its check of closed_ and its wake-up: let it finish. It never
  // waits on anything, so this is a few instructions at most.
  while (road->senders_.load() != 0) std::this_thread::yield();
  road->drain(false);
  road->onDrain_.Reset();
  napi_release_threadsafe_function(road->wake_, napi_tsfn_abort);
  road->release();
}

void Completion::release() {
  if (refs_.fetch_sub(1) == 1) delete this;
}

}  // namespace rxcuda
