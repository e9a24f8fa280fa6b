#include "spinner.hpp"

#include <algorithm>

#include "addon.hpp"
#include "../driver/driver.hpp"

namespace rxcuda {

Spinner::Spinner() : thread_([this] { run(); }) {}

Spinner::~Spinner() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_.store(true);
  }
  ready_.notify_one();
  thread_.join();
}

void Spinner::watch(const volatile uint32_t* address, uint32_t value, Completion::Record* record,
                    std::chrono::microseconds limit, bool quiet) {
  auto now = std::chrono::steady_clock::now();
  add({address, value, nullptr, nullptr, nullptr, quiet, record, now, now + limit});
}

void Spinner::watchEvent(cu::Event event, cu::Context ctx, Completion::Record* record,
                         std::chrono::microseconds limit, cu::Stream stream) {
  auto now = std::chrono::steady_clock::now();
  add({nullptr, 0, event, ctx, stream, false, record, now, now + limit});
}

void Spinner::add(const Watch& w) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    incoming_.push_back(w);
    hasIncoming_.store(true, std::memory_order_release);
  }
  ready_.notify_one();
}

Spinner::Seen Spinner::look(const Watch& w) {
  if (w.address) {
    // An acquire load: a host stream's pool thread stores the word atomically (what it wrote
    // before is then seen); the GPU writes it through the bus.
    uint32_t now = __atomic_load_n(w.address, __ATOMIC_ACQUIRE);
    return static_cast<int32_t>(now - w.value) >= 0 ? Seen::yes : Seen::no;
  }
  const cu::Driver& d = cu::driver();
  if (w.ctx != current_) {
    if (cu::call(d.cuCtxSetCurrent, w.ctx) != cu::kSuccess) return Seen::failed;
    current_ = w.ctx;
  }
  cu::Result r = cu::call(d.cuEventQuery, w.event);
  return r == cu::kSuccess ? Seen::yes : r == cu::kErrorNotReady ? Seen::no : Seen::failed;
}

void Spinner::pauseBriefly() {
  int64_t pause = pauseNs_.load(std::memory_order_relaxed);
  if (pause < 0) pause = std::min(static_cast<int64_t>(typicalNs_ / 16), static_cast<int64_t>(kMaxPause.count()));
  if (pause <= 0) return;
  auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(pause);
  while (std::chrono::steady_clock::now() < until && !hasIncoming_.load(std::memory_order_relaxed)) {
  }
}

void Spinner::run() {
  std::vector<Watch> active;
  std::vector<cu::Stream> notReady;  // this pass's streams whose oldest event has not completed
  auto awakeUntil = std::chrono::steady_clock::time_point{};
  while (!stopping_.load(std::memory_order_relaxed)) {
    bool idle = active.empty() && std::chrono::steady_clock::now() >= awakeUntil;
    if (idle) wakeQuiet();
    if (idle || hasIncoming_.load(std::memory_order_acquire)) {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [&] { return stopping_.load() || !incoming_.empty() || !idle; });
      if (stopping_.load()) break;
      active.insert(active.end(), incoming_.begin(), incoming_.end());
      incoming_.clear();
      hasIncoming_.store(false, std::memory_order_relaxed);
    }
    auto now = std::chrono::steady_clock::now();
    // Watches stay in the order they came: a stream's events after one not completed are not
    // queried this pass (they complete after it).
    notReady.clear();
    size_t kept = 0;
    bool anySeen = false;
    bool words = false;
    for (size_t i = 0; i < active.size(); i++) {
      const Watch& w = active[i];
      bool behind = w.stream && std::find(notReady.begin(), notReady.end(), w.stream) != notReady.end();
      Seen seen = behind ? Seen::no : look(w);
      if (seen == Seen::no && w.stream && !behind) notReady.push_back(w.stream);
      if (seen == Seen::yes && !w.address) {
        double took = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - w.added).count());
        typicalNs_ += (took - typicalNs_) / 8;
      }
      if (seen != Seen::no || now > w.deadline) {
        anySeen = anySeen || seen == Seen::yes;
        if (seen == Seen::yes && w.quiet)
          sendSeen(w);
        else
          Completion::push(w.record, seen == Seen::yes ? 0 : kGaveUp);
      } else {
        words = words || w.address;
        active[kept++] = w;
      }
    }
    active.resize(kept);
    if (active.empty()) {
      awakeUntil = now + kLinger;
    } else if (!anySeen && !words) {
      pauseBriefly();
    }
  }
  for (const Watch& w : active) Completion::push(w.record, kGaveUp);
  for (const Watch& w : incoming_) Completion::push(w.record, kGaveUp);
  wakeQuiet();
}

void Spinner::sendSeen(const Watch& w) {
  // The queue is read first: once pushed, the record may be drained and gone.
  Completion* queue = w.record->queue;
  if (!quiet_) {
    quiet_ = queue;
    quiet_->retain();
  }
  Completion::pushQuietly(w.record, 0);
  if (++quietCount_ >= kQuietAtMost) wakeQuiet();
}

void Spinner::wakeQuiet() {
  if (!quiet_) return;
  quiet_->wake();
  quiet_->release();
  quiet_ = nullptr;
  quietCount_ = 0;
}

namespace {

Napi::Value watch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  if (!addon.spinner) addon.spinner = std::make_unique<Spinner>();
  Completion::Record* record = addon.completion->record(info[0].As<Napi::Number>().Uint32Value());
  addon.spinner->watch(reinterpret_cast<const volatile uint32_t*>(toU64(info[1])),
                       info[2].As<Napi::Number>().Uint32Value(), record,
                       std::chrono::microseconds(info[3].As<Napi::Number>().Int64Value()));
  return env.Undefined();
}

// setWatcherPause(nanoseconds): see Spinner::setPause (for measurements).
Napi::Value setWatcherPause(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  if (!addon.spinner) addon.spinner = std::make_unique<Spinner>();
  addon.spinner->setPause(std::chrono::nanoseconds(info[0].As<Napi::Number>().Int64Value()));
  return env.Undefined();
}

}  // namespace

void defineSpinner(Napi::Env env, Napi::Object exports) {
  exports["watch"] = Napi::Function::New(env, watch, "watch");
  exports["setWatcherPause"] = Napi::Function::New(env, setWatcherPause, "setWatcherPause");
}

}  // namespace rxcuda
