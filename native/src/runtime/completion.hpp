// The completion queue: the one way from a driver (or worker) thread back to the JS main thread.
// A foreign thread pushes a preallocated record onto a lock-free stack and, unless a wake-up is
// already on its way, wakes the main thread (one Node-API threadsafe-function call, never
// blocking); the main thread drains every record at once and hands their ids to JavaScript through
// two typed arrays it shares with it (no allocation on the way).
#pragma once
#include <napi.h>

#include <atomic>
#include <cstdint>

#include "../driver/types.hpp"

namespace rxcuda {

class Completion {
 public:
  // A record is allocated on the main thread when work is enqueued and travels as the callback's
  // user data; the foreign thread only links it in.
  struct Record {
    Record* next = nullptr;
    Completion* queue = nullptr;
    uint32_t id = 0;
    int32_t status = 0;
    // Reported instead of success: the failed submission that skipped the work before it.
    int32_t failure = 0;
    // Counted among the pending records (keeps the event loop alive); a notice is not.
    bool tracked = true;
  };

  // onDrain(count) is called on the main thread once the first count entries of ids and statuses
  // hold drained records, oldest first (in rounds of at most their length).
  static Completion* open(Napi::Env env, Napi::Function onDrain, Napi::Uint32Array ids,
                          Napi::Int32Array statuses);

  // A record for id, counted as pending (keeps the event loop alive) until it is drained.
  Record* record(uint32_t id);
  // Gives back a record whose enqueue failed, without calling JavaScript.
  void cancel(Record* r);

  // Safe to call from any thread; never blocks, never calls JS or CUDA.
  static void push(Record* r, int32_t status);
  // The same without waking the main thread: r is handed over with the next wake-up.
  static void pushQuietly(Record* r, int32_t status);
  // A notice with id 0 and `status`, from any thread, that keeps no event loop alive: a device
  // thread's failed submission (JavaScript then asks for the details).
  void notice(int32_t status);
  // Wakes the main thread unless a wake-up is already on its way (any thread, never blocks).
  void wake();
  // retain() keeps this object alive for a foreign thread that will call wake() later; release()
  // gives back a retain() (or a drained record's reference), and the last one deletes it.
  void retain();
  void release();
  static void streamCallback(cu::Stream, cu::Result status, void* userData);

  // Records not yet given back and completion queues not yet deleted, in the whole process (for
  // tests).
  struct Counts {
    int64_t records, queues;
  };
  static Counts counts();
  // Records of this environment not drained yet (main thread).
  uint32_t pending() const { return pending_; }
  static void hostFunction(void* userData);

 private:
  Completion() = default;
  static void onWake(napi_env env, napi_value, void* context, void*);
  static void onEnvCleanup(void* arg);
  static void deliver(Record* r, int32_t status, bool wakeNow);
  // The wake-up itself, for a sender counted in senders_ that found the queue open.
  void sendWake();
  // Takes every pushed record, oldest first, counting them into n.
  Record* takeAll(int& n);
  // Hands every pushed record to JavaScript; never throws, never calls JS once env is closing.
  void drain(napi_env env);
  // Deletes records that JavaScript will not hear of.
  void dropAll(Record* list);
  // Deletes one record and gives back its reference to this queue.
  void dispose(Record* r);
  void track(int delta);

  napi_env env_ = nullptr;
  napi_threadsafe_function wake_ = nullptr;
  Napi::FunctionReference onDrain_;
  Napi::Reference<Napi::Uint32Array> idsRef_;
  Napi::Reference<Napi::Int32Array> statusesRef_;
  uint32_t* ids_ = nullptr;
  int32_t* statuses_ = nullptr;
  size_t capacity_ = 0;
  std::atomic<Record*> head_{nullptr};
  std::atomic<bool> wakePending_{false};
  std::atomic<int> senders_{0};
  std::atomic<bool> closed_{false};
  std::atomic<int> refs_{1};  // the environment's, one per record not yet drained, one per retain()
  uint32_t pending_ = 0;      // main thread only
};

}  // namespace rxcuda
