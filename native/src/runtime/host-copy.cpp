#include "host-copy.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include "addon.hpp"

namespace rxcuda {

struct CopyPool::Job {
  std::atomic<size_t> left;
  Completion::Record* done;
};

namespace {

// Chunks of at least this much: below it a thread's hand-over costs more than the copy.
constexpr size_t kMinChunk = 256 * 1024;

unsigned defaultThreads() {
  if (const char* env = std::getenv("RXCUDA_COPY_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return static_cast<unsigned>(std::min(n, 64));
  }
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return std::clamp(cores / 2, 2u, 8u);
}

}  // namespace

CopyPool::CopyPool(unsigned threads) {
  unsigned n = threads ? threads : defaultThreads();
  try {
    for (unsigned i = 0; i < n; i++) workers_.emplace_back([this] { work(); });
  } catch (...) {
    stop();  // the threads that did start
    throw;
  }
}

CopyPool::~CopyPool() { stop(); }

void CopyPool::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_)
    if (worker.joinable()) worker.join();
}

void CopyPool::copy(void* dst, const void* src, size_t bytes, Completion::Record* done) {
  size_t parts = std::clamp<size_t>(bytes / kMinChunk, 1, workers_.size());
  // Chunk edges on 4 KiB pages, so that no two threads write one page.
  size_t chunk = ((bytes + parts - 1) / parts + 4095) & ~size_t{4095};
  parts = bytes == 0 ? 1 : (bytes + chunk - 1) / chunk;
  auto job = std::make_shared<Job>();
  job->left.store(parts);
  job->done = done;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < parts; i++) {
      size_t offset = i * chunk;
      chunks_.push_back({job, static_cast<unsigned char*>(dst) + offset,
                         static_cast<const unsigned char*>(src) + offset,
                         std::min(chunk, bytes - std::min(bytes, offset))});
    }
  }
  if (parts == 1) wake_.notify_one();
  else wake_.notify_all();
}

void CopyPool::work() {
  for (;;) {
    Chunk chunk;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !chunks_.empty(); });
      if (chunks_.empty()) return;  // stopping, and nothing left to copy
      chunk = std::move(chunks_.front());
      chunks_.pop_front();
    }
    if (chunk.bytes) std::memcpy(chunk.dst, chunk.src, chunk.bytes);
    if (chunk.job->left.fetch_sub(1, std::memory_order_acq_rel) == 1)
      Completion::push(chunk.job->done, 0);
  }
}

namespace {

CopyPool& poolOf(Napi::Env env, Addon& addon) {
  if (!addon.copies) {
    try {
      addon.copies = std::make_unique<CopyPool>();
    } catch (const std::system_error& error) {
      throw Napi::Error::New(env, std::string("Cannot start the host copy threads: ") + error.what());
    }
  }
  return *addon.copies;
}

// The first byte of a TypedArray (over an ArrayBuffer or a SharedArrayBuffer) that holds at least
// `bytes`, or an address given as a bigint. A detached array holds nothing: a copy to or from one
// is refused here, never made at address 0 (the TypeScript callers check first: this is the last
// line).
void* addressOf(const Napi::Value& value, size_t bytes) {
  if (!value.IsTypedArray()) return reinterpret_cast<void*>(toU64(value));
  Napi::Env env = value.Env();
  size_t have = value.As<Napi::TypedArray>().ByteLength();
  void* data = nullptr;
  NAPI_THROW_IF_FAILED(env, napi_get_typedarray_info(env, value, nullptr, nullptr, &data, nullptr, nullptr), nullptr);
  if (have < bytes)
    throw Napi::RangeError::New(env, "Expected a TypedArray of at least " + std::to_string(bytes) + " bytes, got " +
                                         std::to_string(have) + " (a detached array has none)");
  return data;
}

Napi::Value copyHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  uint32_t id = info[0].As<Napi::Number>().Uint32Value();
  size_t bytes = static_cast<size_t>(info[3].As<Napi::Number>().Int64Value());
  void* dst = addressOf(info[1], bytes);
  const void* src = addressOf(info[2], bytes);
  poolOf(env, addon).copy(dst, src, bytes, addon.completion->record(id));
  return env.Undefined();
}

Napi::Value hostAddress(const Napi::CallbackInfo& info) {
  return Napi::BigInt::New(info.Env(),
                           static_cast<uint64_t>(reinterpret_cast<uintptr_t>(addressOf(info[0], 0))));
}

Napi::Value copyThreads(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), poolOf(info.Env(), Addon::of(info.Env())).threads());
}

}  // namespace

void defineHostCopy(Napi::Env env, Napi::Object exports) {
  exports["copyHost"] = Napi::Function::New(env, copyHost, "copyHost");
  exports["hostAddress"] = Napi::Function::New(env, hostAddress, "hostAddress");
  exports["copyThreads"] = Napi::Function::New(env, copyThreads, "copyThreads");
}

}  // namespace rxcuda
