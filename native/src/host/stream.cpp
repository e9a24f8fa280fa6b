#include "stream.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>

#include "../runtime/addon.hpp"
#include "event.hpp"

namespace rxcuda::host {
namespace {

// Open host streams per environment. A stream costs no thread, but each is memory in JavaScript
// and here; a count past this is a runaway loop, refused as CUDA refuses what it cannot create.
constexpr size_t kMaxStreams = 1 << 16;

// Pool threads per environment that run commands at once (host functions not counted).
size_t poolSize() {
  unsigned cores = std::thread::hardware_concurrency();
  return cores < 2 ? 2 : cores > 8 ? 8 : cores;
}

}  // namespace

void HostStream::define(Napi::Env env, Napi::Object exports) {
  exports["HostStream"] = DefineClass(env, "HostStream", streamMethods<HostStream>());
}

HostStream::HostStream(const Napi::CallbackInfo& info) : Napi::ObjectWrap<HostStream>(info) {
  if (info.Length() > 3 && !info[3].IsUndefined())
    throw Napi::TypeError::New(info.Env(), "The host device has no foreign streams to wrap");
  Napi::Env env = info.Env();
  fault_ = HostDevice::Unwrap(info[0].As<Napi::Object>())->fault();
  flags_ = info[1].As<Napi::Number>().Uint32Value();
  priority_ = info[2].As<Napi::Number>().Int32Value();
  Addon& addon = Addon::of(env);
  if (!addon.hostPool) addon.hostPool = Pool::create(poolSize());
  try {
    addon.hostPool->reserve();
  } catch (const std::system_error& e) {
    addon.throwCuda(env, cu::kErrorOutOfMemory, "cuStreamCreate",
                    std::string("the host device could not start a thread: ") + e.what());
  }
  if (!addon.hostPool->open(kMaxStreams))
    addon.throwCuda(env, cu::kErrorOutOfMemory, "cuStreamCreate",
                    "the host device has " + std::to_string(kMaxStreams) +
                        " open streams, its most; close some first");
  pool_ = addon.hostPool;
  queue_ = Queue::create(pool_);
  failures_ = addon.submitter().failures();
}

// Queued work still runs, as on a CUDA stream: the pool holds the queue until it has.
HostStream::~HostStream() { forget(); }

void HostStream::forget() {
  if (pool_) pool_->closed();
  pool_ = nullptr;
}

Napi::Value HostStream::handle(const Napi::CallbackInfo& info) {
  return Napi::BigInt::New(info.Env(), static_cast<uint64_t>(reinterpret_cast<uintptr_t>(queue_.get())));
}

Napi::Value HostStream::destroy(const Napi::CallbackInfo& info) {
  forget();
  return info.Env().Undefined();
}

Napi::Value HostStream::query(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), queue_->idle());
}

Napi::Value HostStream::priority(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), priority_);
}

Napi::Value HostStream::flags(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), flags_);
}

Napi::Value HostStream::capturing(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), false);
}

Napi::Value HostStream::record(const Napi::CallbackInfo& info) {
  auto event = HostEvent::Unwrap(info[0].As<Napi::Object>())->state();
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(event->mutex);
    generation = ++event->recorded;
  }
  // Always reached, as a GPU records behind a failed stream's work too: a wait for it never hangs.
  queue_->push([event, generation] { event->reach(generation); });
  return info.Env().Undefined();
}

Napi::Value HostStream::waitEvent(const Napi::CallbackInfo& info) {
  auto event = HostEvent::Unwrap(info[0].As<Napi::Object>())->state();
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(event->mutex);
    generation = event->recorded;
  }
  queue_->pushWait(event, generation);
  return info.Env().Undefined();
}

// Queues the completion of `id`: with the device's fault, once it has one.
void HostStream::pushNotify(Napi::Env env, const Napi::Value& id) {
  Completion::Record* r = Addon::of(env).completion->record(id.As<Napi::Number>().Uint32Value());
  queue_->push([r, fault = fault_, failure = failure_] {
    int32_t code = fault->load(std::memory_order_acquire);
    Completion::push(r, code ? code : failure->failed.load(std::memory_order_acquire));
  });
}

Napi::Value HostStream::notify(const Napi::CallbackInfo& info) {
  pushNotify(info.Env(), info[0]);
  return Napi::Boolean::New(info.Env(), true);  // never under capture
}

Napi::Value HostStream::hostFunction(const Napi::CallbackInfo& info) {
  auto fn = reinterpret_cast<cu::HostFn>(toU64(info[0]));
  auto data = reinterpret_cast<void*>(toU64(info[1]));
  pushWork("cuLaunchHostFunc", [fn, data] { fn(data); }, true);
  return info.Env().Undefined();
}

Napi::Value HostStream::writeValue(const Napi::CallbackInfo& info) {
  auto* word = reinterpret_cast<std::atomic<uint32_t>*>(toU64(info[0]));
  uint32_t value = info[1].As<Napi::Number>().Uint32Value();
  pushWork("cuStreamWriteValue32", [word, value] { word->store(value, std::memory_order_release); });
  return info.Env().Undefined();
}

// alloc(bytes): host memory, usable by this stream's work from now on, as with cuMemAllocAsync.
Napi::Value HostStream::alloc(const Napi::CallbackInfo& info) {
  size_t bytes = static_cast<size_t>(info[0].As<Napi::Number>().Int64Value());
  void* ptr = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!ptr) throwOutOfMemory(info.Env(), "cuMemAllocAsync", bytes);
  return Napi::BigInt::New(info.Env(), static_cast<uint64_t>(reinterpret_cast<uintptr_t>(ptr)));
}

Napi::Value HostStream::free(const Napi::CallbackInfo& info) {
  void* ptr = reinterpret_cast<void*>(toU64(info[0]));
  queue_->push([ptr] { std::free(ptr); });
  return info.Env().Undefined();
}

Napi::Value HostStream::copy(const Napi::CallbackInfo& info) {
  auto* dst = reinterpret_cast<void*>(toU64(info[0]));
  auto* src = reinterpret_cast<const void*>(toU64(info[1]));
  size_t bytes = static_cast<size_t>(info[2].As<Napi::Number>().Int64Value());
  pushWork("cuMemcpyAsync", [dst, src, bytes] { std::memmove(dst, src, bytes); });
  return info.Env().Undefined();
}

// copyPeer(dst, dstDevice, src, srcDevice, bytes): host devices share one memory, so a copy
// between two of them is a plain copy in this stream's order.
Napi::Value HostStream::copyPeer(const Napi::CallbackInfo& info) {
  auto* dst = reinterpret_cast<void*>(toU64(info[0]));
  auto* src = reinterpret_cast<const void*>(toU64(info[2]));
  size_t bytes = static_cast<size_t>(info[4].As<Napi::Number>().Int64Value());
  pushWork("cuMemcpyPeerAsync", [dst, src, bytes] { std::memmove(dst, src, bytes); });
  return info.Env().Undefined();
}

// fill(ptr, elementSize, count, low, high): the element's little-endian pattern, count times.
Napi::Value HostStream::fill(const Napi::CallbackInfo& info) {
  auto* ptr = reinterpret_cast<uint8_t*>(toU64(info[0]));
  unsigned size = info[1].As<Napi::Number>().Uint32Value();
  size_t count = static_cast<size_t>(info[2].As<Napi::Number>().Int64Value());
  uint64_t pattern = info[3].As<Napi::Number>().Uint32Value() |
                     (static_cast<uint64_t>(info[4].As<Napi::Number>().Uint32Value()) << 32);
  pushWork("cuMemsetD32Async", [ptr, size, count, pattern] {
    for (size_t i = 0; i < count; i++) std::memcpy(ptr + i * size, &pattern, size);
  });
  return info.Env().Undefined();
}

// flushMark(id) -> false: a host stream's commands are in its queue as soon as they are given.
Napi::Value HostStream::flushMark(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), false);
}

// failNext(code): see Failure (tests).
Napi::Value HostStream::failNext(const Napi::CallbackInfo& info) {
  failure_->next = info[0].As<Napi::Number>().Int32Value();
  return Napi::Boolean::New(info.Env(), true);
}

}  // namespace rxcuda::host
