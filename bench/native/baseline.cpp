// Native C++ baselines that bench/ runs in the same process as rxcuda, through the same driver
// entry points, so each benchmark reports rxcuda's cost as a ratio to the raw driver's.
#include <napi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../../native/src/driver/baseline-driver.hpp"
#include "conditional.hpp"
#include "libraries.hpp"
#include "small-frames.hpp"
#include "uv.hpp"

namespace {

using rxcuda::cu::call;
// Every driver call of the baselines goes through the table that has their own entry points too.
const rxcuda::cu::BaselineDriver& driver() { return rxcuda::cu::baselineDriver(); }
using Clock = std::chrono::steady_clock;

void check(Napi::Env env, rxcuda::cu::Result r, const char* what) {
  if (r != rxcuda::cu::kSuccess)
    throw Napi::Error::New(env, std::string(what) + " failed: " + rxcuda::cu::errorName(r));
}

// Handles and addresses arrive as bigints.
uint64_t bigintArg(const Napi::Value& v) {
  bool lossless = false;
  return v.As<Napi::BigInt>().Uint64Value(&lossless);
}

rxcuda::cu::Stream streamArg(const Napi::Value& v) {
  return reinterpret_cast<rxcuda::cu::Stream>(bigintArg(v));
}

rxcuda::cu::Function functionArg(const Napi::Value& v) {
  return reinterpret_cast<rxcuda::cu::Function>(bigintArg(v));
}

// A word of pinned memory, read and written by the host while the device writes or reads it.
volatile uint32_t* wordArg(const Napi::Value& v) {
  return reinterpret_cast<volatile uint32_t*>(bigintArg(v));
}

// launchBursts(fn: bigint, stream: bigint, sizes: Uint32Array, bursts: number, burstSize: number)
//   -> Float64Array: nanoseconds per launch in each burst. The drain after each burst is untimed.
Napi::Value launchBursts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto fn = functionArg(info[0]);
  auto stream = streamArg(info[1]);
  auto sizes = info[2].As<Napi::Uint32Array>();
  uint32_t bursts = info[3].As<Napi::Number>().Uint32Value();
  uint32_t burstSize = info[4].As<Napi::Number>().Uint32Value();
  const auto& d = driver();
  rxcuda::cu::Context ctx = nullptr;
  check(env, call(d.cuStreamGetCtx, stream, &ctx), "cuStreamGetCtx");
  check(env, call(d.cuCtxSetCurrent, ctx), "cuCtxSetCurrent");

  alignas(16) unsigned char values[512] = {0};
  std::vector<void*> params;
  size_t offset = 0;
  for (size_t i = 0; i < sizes.ElementLength(); i++) {
    size_t size = sizes[i];
    offset = (offset + size - 1) / size * size;
    params.push_back(values + offset);
    offset += size;
  }
  rxcuda::cu::LaunchConfig config{1, 1, 1, 32, 1, 1, 0, stream, nullptr, 0};
  auto out = Napi::Float64Array::New(env, bursts);
  for (uint32_t b = 0; b < bursts; b++) {
    auto start = Clock::now();
    for (uint32_t i = 0; i < burstSize; i++)
      check(env, d.cuLaunchKernelEx(&config, fn, params.empty() ? nullptr : params.data(), nullptr),
            "cuLaunchKernelEx");
    auto end = Clock::now();
    check(env, call(d.cuStreamSynchronize, stream), "cuStreamSynchronize");
    out[b] = std::chrono::duration<double, std::nano>(end - start).count() / burstSize;
  }
  return out;
}

// graphBursts(fn: bigint, stream: bigint, pointer: bigint, kernels: number, bursts: number,
//   burstSize: number) -> Float64Array: nanoseconds per cuGraphLaunch in each burst, of a graph
// that chains `kernels` launches of fn(pointer), <<<1, 32>>>. The drain after each burst is untimed.
Napi::Value graphBursts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto fn = functionArg(info[0]);
  auto stream = streamArg(info[1]);
  uint64_t pointer = bigintArg(info[2]);
  uint32_t kernels = info[3].As<Napi::Number>().Uint32Value();
  uint32_t bursts = info[4].As<Napi::Number>().Uint32Value();
  uint32_t burstSize = info[5].As<Napi::Number>().Uint32Value();
  const auto& d = driver();
  rxcuda::cu::Context ctx = nullptr;
  check(env, call(d.cuStreamGetCtx, stream, &ctx), "cuStreamGetCtx");
  check(env, call(d.cuCtxSetCurrent, ctx), "cuCtxSetCurrent");
  rxcuda::cu::Graph graph = nullptr;
  check(env, call(d.cuGraphCreate, &graph, 0u), "cuGraphCreate");
  void* params[] = {&pointer};
  rxcuda::cu::KernelNodeParams node{fn, 1, 1, 1, 32, 1, 1, 0, params, nullptr, nullptr, nullptr};
  rxcuda::cu::GraphNode last = nullptr;
  for (uint32_t i = 0; i < kernels; i++) {
    rxcuda::cu::GraphNode added = nullptr;
    check(env, call(d.cuGraphAddKernelNode, &added, graph, last ? &last : nullptr, last ? size_t{1} : size_t{0}, &node),
          "cuGraphAddKernelNode");
    last = added;
  }
  rxcuda::cu::GraphExec exec = nullptr;
  check(env, call(d.cuGraphInstantiateWithFlags, &exec, graph, 0ull), "cuGraphInstantiateWithFlags");
  auto out = Napi::Float64Array::New(env, bursts);
  for (uint32_t b = 0; b < bursts; b++) {
    auto start = Clock::now();
    for (uint32_t i = 0; i < burstSize; i++) check(env, d.cuGraphLaunch(exec, stream), "cuGraphLaunch");
    auto end = Clock::now();
    check(env, call(d.cuStreamSynchronize, stream), "cuStreamSynchronize");
    out[b] = std::chrono::duration<double, std::nano>(end - start).count() / burstSize;
  }
  call(d.cuGraphExecDestroy, exec);
  call(d.cuGraphDestroy, graph);
  return out;
}

double micros(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

struct Wakeup {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
};

void wake(void* data) {
  auto* w = static_cast<Wakeup*>(data);
  std::lock_guard<std::mutex> lock(w->mutex);
  w->done = true;
  w->cv.notify_one();
}

// hostCallbackRoundTrips(kernel, stream, count, api = 'hostFunction', enqueued?) -> Float64Array of
// microseconds: an empty kernel launched, then a host function ('hostFunction': cuLaunchHostFunc;
// 'streamCallback': cuStreamAddCallback) waking this thread through a condition variable. When
// given, the Float64Arrays `enqueued` and `launched` receive the microseconds the two enqueues and
// the launch alone took.
void wakeFromCallback(rxcuda::cu::Stream, rxcuda::cu::Result, void* data) { wake(data); }

Napi::Value hostCallbackRoundTrips(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto fn = functionArg(info[0]);
  auto stream = streamArg(info[1]);
  uint32_t count = info[2].As<Napi::Number>().Uint32Value();
  bool viaCallback = info.Length() > 3 && info[3].IsString() && info[3].ToString().Utf8Value() == "streamCallback";
  Napi::Float64Array enqueued;
  Napi::Float64Array launched;
  if (info.Length() > 4 && info[4].IsTypedArray()) enqueued = info[4].As<Napi::Float64Array>();
  if (info.Length() > 5 && info[5].IsTypedArray()) launched = info[5].As<Napi::Float64Array>();
  const auto& d = driver();
  rxcuda::cu::LaunchConfig config{1, 1, 1, 1, 1, 1, 0, stream, nullptr, 0};
  auto out = Napi::Float64Array::New(env, count);
  Wakeup w;
  for (uint32_t i = 0; i < count; i++) {
    w.done = false;
    auto start = Clock::now();
    check(env, d.cuLaunchKernelEx(&config, fn, nullptr, nullptr), "cuLaunchKernelEx");
    if (!launched.IsEmpty() && i < launched.ElementLength()) launched[i] = micros(start, Clock::now());
    if (viaCallback)
      check(env, call(d.cuStreamAddCallback, stream, &wakeFromCallback, static_cast<void*>(&w), 0u),
            "cuStreamAddCallback");
    else
      check(env, call(d.cuLaunchHostFunc, stream, &wake, static_cast<void*>(&w)), "cuLaunchHostFunc");
    if (!enqueued.IsEmpty() && i < enqueued.ElementLength()) enqueued[i] = micros(start, Clock::now());
    std::unique_lock<std::mutex> lock(w.mutex);
    w.cv.wait(lock, [&] { return w.done; });
    out[i] = micros(start, Clock::now());
  }
  return out;
}

// spinRoundTrips(kernel, stream, word, count) -> Float64Array of microseconds: an empty kernel
// launched, then a stream write of i to the pinned `word`, which this thread spin-polls.
Napi::Value spinRoundTrips(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto fn = functionArg(info[0]);
  auto stream = streamArg(info[1]);
  auto* word = wordArg(info[2]);
  uint32_t count = info[3].As<Napi::Number>().Uint32Value();
  const auto& d = driver();
  rxcuda::cu::LaunchConfig config{1, 1, 1, 1, 1, 1, 0, stream, nullptr, 0};
  auto out = Napi::Float64Array::New(env, count);
  *word = 0;
  for (uint32_t i = 1; i <= count; i++) {
    auto start = Clock::now();
    check(env, d.cuLaunchKernelEx(&config, fn, nullptr, nullptr), "cuLaunchKernelEx");
    check(env, call(d.cuStreamWriteValue32, stream, reinterpret_cast<uintptr_t>(word), i, 0u), "cuStreamWriteValue32");
    while (*word != i) {}
    out[i - 1] = micros(start, Clock::now());
  }
  return out;
}

// An observer: a thread that watches a pinned word take the values 1..count and notes when it saw
// each (nanoseconds of the monotonic clock, the one process.hrtime reads), so that a benchmark
// can time when a write became visible without the main thread having to look.
struct Observer {
  std::thread thread;
  std::vector<double> seen;
};

// startObserver(word: bigint, count) -> External; finishObserver(observer) -> Float64Array.
Napi::Value startObserver(const Napi::CallbackInfo& info) {
  auto* word = wordArg(info[0]);
  uint32_t count = info[1].As<Napi::Number>().Uint32Value();
  auto* observer = new Observer();
  observer->seen.assign(count, 0.0);
  observer->thread = std::thread([observer, word, count] {
    for (uint32_t i = 1; i <= count; i++) {
      auto giveUp = Clock::now() + std::chrono::seconds(5);
      while (static_cast<int32_t>(*word - i) < 0 && Clock::now() < giveUp) {}
      observer->seen[i - 1] = std::chrono::duration<double, std::nano>(Clock::now().time_since_epoch()).count();
    }
  });
  return Napi::External<Observer>::New(info.Env(), observer);
}

Napi::Value finishObserver(const Napi::CallbackInfo& info) {
  auto* observer = info[0].As<Napi::External<Observer>>().Data();
  observer->thread.join();
  auto out = Napi::Float64Array::New(info.Env(), observer->seen.size());
  std::copy(observer->seen.begin(), observer->seen.end(), out.Data());
  delete observer;
  return out;
}

// The Node-API floor of a completion: a kernel launched from C++, then cuLaunchHostFunc waking the
// main thread, which calls a JavaScript callback. No rxcuda code on the way. Two ways to wake it:
// a threadsafe function ('tsfn'), or a bare libuv async handle whose callback enters JavaScript
// through napi_make_callback ('uvAsync'), so that microtasks run after it as they do after a
// threadsafe function's call.
struct Waker {
  bool viaUv = false;
  napi_threadsafe_function tsfn = nullptr;
  void* async = nullptr;
  napi_env env = nullptr;
  napi_ref callback = nullptr;
  napi_async_context context = nullptr;
  // holdAndWake's second stream and event, made on first use.
  rxcuda::cu::Stream side = nullptr;
  rxcuda::cu::Event reached = nullptr;
};

void callWakerCallback(napi_env env, napi_value callback, void*, void*) {
  if (!env || !callback) return;
  napi_value undefined = nullptr;
  napi_get_undefined(env, &undefined);
  napi_call_function(env, undefined, callback, 0, nullptr, nullptr);
}

void onAsyncWake(uv_async_s* async) {
  auto* waker = static_cast<Waker*>(uv::data(async));
  napi_env env = waker->env;
  napi_handle_scope scope = nullptr;
  napi_open_handle_scope(env, &scope);
  napi_value callback = nullptr;
  napi_value global = nullptr;  // napi_make_callback takes an object as the receiver
  napi_get_reference_value(env, waker->callback, &callback);
  napi_get_global(env, &global);
  napi_make_callback(env, waker->context, global, callback, 0, nullptr, nullptr);
  napi_close_handle_scope(env, scope);
}

void wakeThroughTsfn(void* data) {
  auto* waker = static_cast<Waker*>(data);
  if (waker->viaUv)
    uv_async_send(static_cast<uv_async_s*>(waker->async));
  else
    napi_call_threadsafe_function(waker->tsfn, nullptr, napi_tsfn_nonblocking);
}

// createWaker(callback, kind = 'tsfn' | 'uvAsync') -> External; launchAndWake(kernel, stream,
// waker); closeWaker(waker).
Napi::Value createWaker(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto* waker = new Waker();
  waker->viaUv = info.Length() > 1 && info[1].IsString() && info[1].ToString().Utf8Value() == "uvAsync";
  napi_value name = Napi::String::New(env, "rxcuda-bench:waker");
  if (waker->viaUv) {
    uv_loop_s* loop = nullptr;
    napi_get_uv_event_loop(env, &loop);
    waker->env = env;
    napi_create_reference(env, info[0], 1, &waker->callback);
    napi_async_init(env, nullptr, name, &waker->context);
    waker->async = ::operator new(uv_handle_size(uv::kAsync));
    uv_async_init(loop, static_cast<uv_async_s*>(waker->async), &onAsyncWake);
    uv::data(waker->async) = waker;
  } else if (napi_create_threadsafe_function(env, info[0], nullptr, name, 0, 1, nullptr, nullptr,
                                             nullptr, &callWakerCallback, &waker->tsfn) != napi_ok) {
    delete waker;
    throw Napi::Error::New(env, "napi_create_threadsafe_function failed");
  }
  return Napi::External<Waker>::New(env, waker);
}

Napi::Value launchAndWake(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto fn = functionArg(info[0]);
  auto stream = streamArg(info[1]);
  auto* waker = info[2].As<Napi::External<Waker>>().Data();
  const auto& d = driver();
  rxcuda::cu::LaunchConfig config{1, 1, 1, 1, 1, 1, 0, stream, nullptr, 0};
  check(env, d.cuLaunchKernelEx(&config, fn, nullptr, nullptr), "cuLaunchKernelEx");
  check(env, call(d.cuLaunchHostFunc, stream, &wakeThroughTsfn, static_cast<void*>(waker)), "cuLaunchHostFunc");
  return env.Undefined();
}

void wakeWakerFromCallback(rxcuda::cu::Stream, rxcuda::cu::Result, void* waker) { wakeThroughTsfn(waker); }

// holdAndWake(store, stream, gate, flag, value, waker): a held step made in C++ as rxcuda makes
// one, its step being the waker's JavaScript callback: an event recorded on the stream, a second
// stream that waits for it and then wakes the main thread (cuStreamAddCallback, the waker), the
// stream waiting until `gate` is at least `value`, then `store(flag, value)` behind the wait.
Napi::Value holdAndWake(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto fn = functionArg(info[0]);
  auto stream = streamArg(info[1]);
  uint64_t gate = bigintArg(info[2]);
  uint64_t flag = bigintArg(info[3]);
  uint32_t value = info[4].As<Napi::Number>().Uint32Value();
  auto* waker = info[5].As<Napi::External<Waker>>().Data();
  const auto& d = driver();
  if (!waker->side) {
    check(env, call(d.cuStreamCreateWithPriority, &waker->side, rxcuda::cu::kStreamNonBlocking, 0), "cuStreamCreate");
    check(env, call(d.cuEventCreate, &waker->reached, rxcuda::cu::kEventDisableTiming), "cuEventCreate");
  }
  check(env, call(d.cuEventRecord, waker->reached, stream), "cuEventRecord");
  check(env, call(d.cuStreamWaitEvent, waker->side, waker->reached, 0u), "cuStreamWaitEvent");
  check(env, call(d.cuStreamAddCallback, waker->side, &wakeWakerFromCallback, static_cast<void*>(waker), 0u), "cuStreamAddCallback");
  check(env, call(d.cuStreamWaitValue32, stream, gate, value, 0u), "cuStreamWaitValue32");
  void* params[] = {&flag, &value};
  rxcuda::cu::LaunchConfig config{1, 1, 1, 1, 1, 1, 0, stream, nullptr, 0};
  check(env, d.cuLaunchKernelEx(&config, fn, params, nullptr), "cuLaunchKernelEx");
  return env.Undefined();
}

// launchStore(store, stream, flag, value): store(flag, value) launched from C++ at once: what a
// JavaScript step's continuation costs when it calls the driver itself, with no queue in between.
Napi::Value launchStore(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto fn = functionArg(info[0]);
  auto stream = streamArg(info[1]);
  uint64_t flag = bigintArg(info[2]);
  uint32_t value = info[3].As<Napi::Number>().Uint32Value();
  void* params[] = {&flag, &value};
  rxcuda::cu::LaunchConfig config{1, 1, 1, 1, 1, 1, 0, stream, nullptr, 0};
  check(env, driver().cuLaunchKernelEx(&config, fn, params, nullptr), "cuLaunchKernelEx");
  return env.Undefined();
}

Napi::Value closeWaker(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto* waker = info[0].As<Napi::External<Waker>>().Data();
  if (waker->side) {
    call(driver().cuStreamSynchronize, waker->side);
    call(driver().cuEventDestroy, waker->reached);
    call(driver().cuStreamDestroy, waker->side);
  }
  if (!waker->viaUv) {
    napi_release_threadsafe_function(waker->tsfn, napi_tsfn_release);
    delete waker;
    return env.Undefined();
  }
  napi_delete_reference(env, waker->callback);
  napi_async_destroy(env, waker->context);
  uv_close(static_cast<uv_handle_s*>(waker->async), [](uv_handle_s* handle) {
    auto* closing = static_cast<Waker*>(uv::data(handle));
    ::operator delete(closing->async);
    delete closing;
  });
  return env.Undefined();
}

void note(void* ran) { static_cast<std::atomic<bool>*>(ran)->store(true); }
void noteFromCallback(rxcuda::cu::Stream, rxcuda::cu::Result, void* ran) { note(ran); }

// gateRoundTrips(store, stream, gate, flag, count, notification = 'none', afterHostFunction = -1)
// -> Float64Array of microseconds: the stream waits (cuStreamWaitValue32) on the pinned word
// `gate`; behind the wait, `store(flag, i)`. Timed from the host's store to the gate until this
// thread sees the kernel's write to `flag`. `notification` puts a host function (that notes that it
// ran) before each wait, as a held step's notification: 'sameStream' on the stream itself;
// 'sideStream' on a second stream that waits for an event recorded on the first ('sideCallback':
// the same through cuStreamAddCallback; 'sideEventOnly': the event and the second stream's wait,
// no host function); 'sideWord' on a second stream that waits for a word the first one writes;
// 'eventThread' (with afterHostFunction) in place of a host function, see below.
Napi::Value gateRoundTrips(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto fn = functionArg(info[0]);
  auto stream = streamArg(info[1]);
  auto* gate = wordArg(info[2]);
  auto* flag = wordArg(info[3]);
  uint32_t count = info[4].As<Napi::Number>().Uint32Value();
  std::string notification = info.Length() > 5 ? info[5].ToString().Utf8Value() : "none";
  const auto& d = driver();
  rxcuda::cu::Stream side = nullptr;
  rxcuda::cu::Event reached = nullptr;
  bool byWord = notification == "sideWord";
  uint32_t* reachedWord = nullptr;
  // With `afterHostFunction` (µs) the store comes that long after the second stream's host
  // function ran, as a held step's does, instead of 100 µs after the enqueue.
  int afterHostFunction = info.Length() > 6 ? info[6].As<Napi::Number>().Int32Value() : -1;
  std::atomic<bool> ran{false};
  // 'eventThread': no host function at all; a thread of this benchmark waits for the event
  // (blocking sync, woken by the driver's interrupt) and notes that it was reached.
  std::atomic<uint32_t> armed{0};
  std::thread waiter;
  if (notification == "eventThread") {
    constexpr unsigned kBlockingSync = 0x1;
    check(env, call(d.cuEventCreate, &reached, kBlockingSync | rxcuda::cu::kEventDisableTiming), "cuEventCreate");
    rxcuda::cu::Context ctx = nullptr;
    check(env, call(d.cuStreamGetCtx, stream, &ctx), "cuStreamGetCtx");
    waiter = std::thread([&, ctx] {
      call(d.cuCtxSetCurrent, ctx);
      for (uint32_t i = 1; i <= count; i++) {
        while (armed.load() < i) std::this_thread::yield();
        call(d.cuEventSynchronize, reached);
        ran.store(true);
      }
    });
  }
  if (notification == "sideStream" || notification == "sideCallback" || notification == "sideEventOnly" || byWord) {
    check(env, call(d.cuStreamCreateWithPriority, &side, rxcuda::cu::kStreamNonBlocking, 0), "cuStreamCreate");
    check(env, call(d.cuEventCreate, &reached, rxcuda::cu::kEventDisableTiming), "cuEventCreate");
    if (byWord) {
      void* p = nullptr;
      check(env, call(d.cuMemHostAlloc, &p, size_t{4}, 0u), "cuMemHostAlloc");
      reachedWord = static_cast<uint32_t*>(p);
      *reachedWord = 0;
    }
  }
  rxcuda::cu::LaunchConfig config{1, 1, 1, 1, 1, 1, 0, stream, nullptr, 0};
  auto out = Napi::Float64Array::New(env, count);
  *gate = 0;
  *flag = 0;
  uint64_t flagAddress = reinterpret_cast<uintptr_t>(flag);
  for (uint32_t i = 1; i <= count; i++) {
    uint32_t value = i;
    void* params[] = {&flagAddress, &value};
    if (notification == "sameStream")
      check(env, call(d.cuLaunchHostFunc, stream, &note, static_cast<void*>(&ran)), "cuLaunchHostFunc");
    if (waiter.joinable()) {
      check(env, call(d.cuEventRecord, reached, stream), "cuEventRecord");
      armed.store(i);
    } else if (byWord) {
      auto address = reinterpret_cast<uintptr_t>(reachedWord);
      check(env, call(d.cuStreamWriteValue32, stream, address, i, 0u), "cuStreamWriteValue32");
      check(env, call(d.cuStreamWaitValue32, side, address, i, 0u), "cuStreamWaitValue32");
      check(env, call(d.cuLaunchHostFunc, side, &note, static_cast<void*>(&ran)), "cuLaunchHostFunc");
    } else if (side) {
      check(env, call(d.cuEventRecord, reached, stream), "cuEventRecord");
      check(env, call(d.cuStreamWaitEvent, side, reached, 0u), "cuStreamWaitEvent");
      if (notification == "sideCallback")
        check(env, call(d.cuStreamAddCallback, side, &noteFromCallback, static_cast<void*>(&ran), 0u), "cuStreamAddCallback");
      else if (notification != "sideEventOnly")
        check(env, call(d.cuLaunchHostFunc, side, &note, static_cast<void*>(&ran)), "cuLaunchHostFunc");
    }
    check(env, call(d.cuStreamWaitValue32, stream, reinterpret_cast<uintptr_t>(gate), i, 0u), "cuStreamWaitValue32");
    check(env, d.cuLaunchKernelEx(&config, fn, params, nullptr), "cuLaunchKernelEx");
    // Let the stream reach the wait, as it has when a host step runs.
    auto engaged = Clock::now() + std::chrono::microseconds(100);
    if (afterHostFunction >= 0) {
      while (!ran.load()) {}
      engaged = Clock::now() + std::chrono::microseconds(afterHostFunction);
    }
    while (Clock::now() < engaged) {}
    ran.store(false);
    auto start = Clock::now();
    *gate = i;
    while (*flag != i) {}
    out[i - 1] = micros(start, Clock::now());
  }
  check(env, call(d.cuStreamSynchronize, stream), "cuStreamSynchronize");
  if (waiter.joinable()) {
    waiter.join();
    call(d.cuEventDestroy, reached);
  }
  if (side) {
    check(env, call(d.cuStreamSynchronize, side), "cuStreamSynchronize");
    call(d.cuEventDestroy, reached);
    call(d.cuStreamDestroy, side);
    if (reachedWord) call(d.cuMemFreeHost, static_cast<void*>(reachedWord));
  }
  return out;
}

// pipelineBaseline(kernel, frames, frameBytes, lanes) -> { seconds, h2dGBps, d2hGBps }: frames of
// frameBytes through upload → kernel(ptr, u32 words) → download on `lanes` streams with pinned
// staging buffers and events, as a hand-written C++ program would do it; plus the copy engines'
// bandwidth measured alone, for the overlap.
Napi::Value pipelineBaseline(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto fn = functionArg(info[0]);
  uint32_t frames = info[1].As<Napi::Number>().Uint32Value();
  size_t bytes = static_cast<size_t>(info[2].As<Napi::Number>().Int64Value());
  uint32_t lanes = info[3].As<Napi::Number>().Uint32Value();
  const auto& d = driver();
  struct Lane {
    rxcuda::cu::Stream stream = nullptr;
    rxcuda::cu::Event done = nullptr;
    void* in = nullptr;
    void* out = nullptr;
    rxcuda::cu::DevicePtr buffer = 0;
    bool busy = false;
  };
  std::vector<Lane> pool(lanes);
  for (auto& lane : pool) {
    check(env, call(d.cuStreamCreateWithPriority, &lane.stream, rxcuda::cu::kStreamNonBlocking, 0), "cuStreamCreate");
    check(env, call(d.cuEventCreate, &lane.done, rxcuda::cu::kEventDisableTiming), "cuEventCreate");
    check(env, call(d.cuMemHostAlloc, &lane.in, bytes, 0u), "cuMemHostAlloc");
    check(env, call(d.cuMemHostAlloc, &lane.out, bytes, 0u), "cuMemHostAlloc");
    check(env, call(d.cuMemAllocAsync, &lane.buffer, bytes, lane.stream), "cuMemAllocAsync");
    std::memset(lane.in, 1, bytes);
  }
  uint32_t words = static_cast<uint32_t>(bytes / 4);
  rxcuda::cu::LaunchConfig config{std::min(1024u, (words + 255) / 256), 1, 1, 256, 1, 1, 0, nullptr, nullptr, 0};
  // The same host work as the rxcuda pipeline: each frame is copied from its source into pinned
  // staging, and each result out of pinned memory into memory of its own.
  std::vector<unsigned char> source(bytes, 1), result(bytes);
  auto start = Clock::now();
  for (uint32_t f = 0; f < frames; f++) {
    Lane& lane = pool[f % lanes];
    if (lane.busy) {
      check(env, call(d.cuEventSynchronize, lane.done), "cuEventSynchronize");
      std::memcpy(result.data(), lane.out, bytes);
    }
    std::memcpy(lane.in, source.data(), bytes);
    config.hStream = lane.stream;
    void* params[] = {&lane.buffer, &words};
    check(env, call(d.cuMemcpyAsync, lane.buffer, reinterpret_cast<uintptr_t>(lane.in), bytes, lane.stream), "cuMemcpyAsync");
    check(env, d.cuLaunchKernelEx(&config, fn, params, nullptr), "cuLaunchKernelEx");
    check(env, call(d.cuMemcpyAsync, reinterpret_cast<uintptr_t>(lane.out), lane.buffer, bytes, lane.stream), "cuMemcpyAsync");
    check(env, call(d.cuEventRecord, lane.done, lane.stream), "cuEventRecord");
    lane.busy = true;
  }
  for (auto& lane : pool) {
    check(env, call(d.cuStreamSynchronize, lane.stream), "cuStreamSynchronize");
    if (lane.busy) std::memcpy(result.data(), lane.out, bytes);
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  auto bandwidth = [&](bool toDevice) {
    Lane& lane = pool[0];
    auto t0 = Clock::now();
    for (int i = 0; i < 20; i++) {
      if (toDevice) call(d.cuMemcpyAsync, lane.buffer, reinterpret_cast<uintptr_t>(lane.in), bytes, lane.stream);
      else call(d.cuMemcpyAsync, reinterpret_cast<uintptr_t>(lane.out), lane.buffer, bytes, lane.stream);
    }
    call(d.cuStreamSynchronize, lane.stream);
    return 20.0 * bytes / std::chrono::duration<double>(Clock::now() - t0).count() / 1e9;
  };
  double h2d = bandwidth(true), d2h = bandwidth(false);
  // Both directions at once, on two streams, as a pipeline's uploads and downloads overlap: what
  // the link gives each direction then (bytes per second per direction).
  double duplex = 0;
  if (lanes >= 2) {
    auto t0 = Clock::now();
    for (int i = 0; i < 20; i++) {
      call(d.cuMemcpyAsync, pool[0].buffer, reinterpret_cast<uintptr_t>(pool[0].in), bytes, pool[0].stream);
      call(d.cuMemcpyAsync, reinterpret_cast<uintptr_t>(pool[1].out), pool[1].buffer, bytes, pool[1].stream);
    }
    call(d.cuStreamSynchronize, pool[0].stream);
    call(d.cuStreamSynchronize, pool[1].stream);
    duplex = 20.0 * bytes / std::chrono::duration<double>(Clock::now() - t0).count() / 1e9;
  }
  for (auto& lane : pool) {
    call(d.cuMemFreeAsync, lane.buffer, lane.stream);
    call(d.cuStreamSynchronize, lane.stream);
    call(d.cuMemFreeHost, lane.in);
    call(d.cuMemFreeHost, lane.out);
    call(d.cuEventDestroy, lane.done);
    call(d.cuStreamDestroy, lane.stream);
  }
  auto out = Napi::Object::New(env);
  out["seconds"] = seconds;
  out["h2dGBps"] = h2d;
  out["d2hGBps"] = d2h;
  out["duplexGBps"] = duplex;
  return out;
}

// A frame's completion as a host function reports it (modes 3 and 4 of pinnedPipelineBaseline).
struct FrameSignal {
  std::atomic<bool> done{false};
  std::mutex* mutex = nullptr;
  std::condition_variable* wake = nullptr;
};

void signalFrame(void* data) {
  auto* signal = static_cast<FrameSignal*>(data);
  if (signal->mutex) {
    std::lock_guard<std::mutex> lock(*signal->mutex);
    signal->done.store(true, std::memory_order_release);
    signal->wake->notify_one();
  } else {
    signal->done.store(true, std::memory_order_release);
  }
}

// pinnedPipelineBaseline(kernel, frames, frameBytes, lanes, inFlight, seenAt?, mode?, spans?) -> { seconds }: the same
// pipeline as a C++ program with pinned frames would run it: `inFlight` frames, each a pinned
// input, a device buffer and a pinned output, round robin over `lanes` streams, so that uploads
// and downloads of different frames overlap. The producer writes a frame header only and the
// consumer reads one, as bench/pipeline's producer does: what is measured is the transport.
Napi::Value pinnedPipelineBaseline(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto fn = functionArg(info[0]);
  uint32_t frames = info[1].As<Napi::Number>().Uint32Value();
  size_t bytes = static_cast<size_t>(info[2].As<Napi::Number>().Int64Value());
  uint32_t lanes = info[3].As<Napi::Number>().Uint32Value();
  uint32_t inFlight = info[4].As<Napi::Number>().Uint32Value();
  // Optional: a Float64Array that gets, for each frame, the seconds from the start to when its
  // completion was seen.
  double* seenAt = nullptr;
  if (info.Length() > 5 && info[5].IsTypedArray()) {
    auto times = info[5].As<Napi::Float64Array>();
    if (times.ElementLength() >= frames) seenAt = times.Data();
  }
  // Optional schedule: 0, each frame on one stream; 1 (split), results copied back on a second
  // stream per lane, which waits for the kernel through an event; 2 (queues), every upload on one
  // stream and every download on another, the kernels on the lanes, joined by events; 3, as 0 but
  // each frame's completion reported by a host function enqueued after it, which the main thread
  // spins on; 4, the same, with the main thread sleeping on a condition variable; 5, as 4 but
  // the host function on a side stream of the lane, behind an event; 6, the device writes a word
  // of pinned memory after each frame (cuStreamWriteValue32), which the main thread spins on; 7, as
  // 5 with the main thread spinning; 9, no host function: a thread polls the frames' events
  // (cuEventQuery) and wakes the main thread through the condition variable; 10, as 0 with events
  // made with CU_EVENT_BLOCKING_SYNC, so the main thread sleeps in cuEventSynchronize; 11, those
  // events waited on in order by a thread that wakes the main thread through the condition variable.
  uint32_t mode = info.Length() > 6 && info[6].IsNumber() ? info[6].As<Napi::Number>().Uint32Value() : 0;
  bool split = mode == 1;
  bool queues = mode == 2;
  std::mutex signalMutex;
  std::condition_variable signalWake;
  std::vector<FrameSignal> signals(inFlight);
  bool blockingEvents = mode == 10 || mode == 11;
  if (mode == 4 || mode == 5 || mode == 9 || mode == 11)
    for (auto& signal : signals) {
      signal.mutex = &signalMutex;
      signal.wake = &signalWake;
    }
  // Optional: a Float64Array of 4 × frames that gets each frame's device times, in ms from the
  // first frame's start: before its upload, after its upload, after its kernel, after its
  // download (timing events; mode 0 only).
  double* spans = nullptr;
  if (info.Length() > 7 && info[7].IsTypedArray() && mode == 0) {
    auto times = info[7].As<Napi::Float64Array>();
    if (times.ElementLength() >= 4 * size_t{frames}) spans = times.Data();
  }
  std::vector<rxcuda::cu::Event> marks(spans ? 4 * size_t{frames} : 0);
  const auto& d = driver();
  std::vector<rxcuda::cu::Stream> streams(lanes), downStreams(split ? lanes : queues ? 2 : 0);
  bool hostFunction = mode == 3 || mode == 4 || mode == 5 || mode == 7;
  bool sideNotify = mode == 5 || mode == 7;
  bool poller = mode == 9 || mode == 11;
  bool writeValue = mode == 6;
  std::vector<rxcuda::cu::Stream> sides(sideNotify ? lanes : 0);
  for (auto& stream : sides)
    check(env, call(d.cuStreamCreateWithPriority, &stream, rxcuda::cu::kStreamNonBlocking, 0), "cuStreamCreate");
  uint32_t* doneWords = nullptr;  // mode 6: one word per slot, the frame number + 1 once done
  if (writeValue) {
    check(env, call(d.cuMemHostAlloc, reinterpret_cast<void**>(&doneWords), sizeof(uint32_t) * inFlight, 0u), "cuMemHostAlloc");
    std::memset(doneWords, 0, sizeof(uint32_t) * inFlight);
  }

  for (auto& stream : streams)
    check(env, call(d.cuStreamCreateWithPriority, &stream, rxcuda::cu::kStreamNonBlocking, 0), "cuStreamCreate");
  for (auto& stream : downStreams)
    check(env, call(d.cuStreamCreateWithPriority, &stream, rxcuda::cu::kStreamNonBlocking, 0), "cuStreamCreate");
  for (auto& mark : marks) check(env, call(d.cuEventCreate, &mark, 0u), "cuEventCreate");
  struct Slot {
    rxcuda::cu::Event done = nullptr;
    rxcuda::cu::Event computed = nullptr;
    rxcuda::cu::Event uploaded = nullptr;
    uint32_t* in = nullptr;
    uint32_t* out = nullptr;
    rxcuda::cu::DevicePtr buffer = 0;
    bool busy = false;
    uint32_t frame = 0;
  };
  std::vector<Slot> slots(inFlight);
  for (uint32_t i = 0; i < inFlight; i++) {
    Slot& slot = slots[i];
    check(env, call(d.cuEventCreate, &slot.done, rxcuda::cu::kEventDisableTiming | (blockingEvents ? rxcuda::cu::kEventBlockingSync : 0u)), "cuEventCreate");
    check(env, call(d.cuEventCreate, &slot.computed, rxcuda::cu::kEventDisableTiming), "cuEventCreate");
    check(env, call(d.cuEventCreate, &slot.uploaded, rxcuda::cu::kEventDisableTiming), "cuEventCreate");
    check(env, call(d.cuMemHostAlloc, reinterpret_cast<void**>(&slot.in), bytes, 0u), "cuMemHostAlloc");
    check(env, call(d.cuMemHostAlloc, reinterpret_cast<void**>(&slot.out), bytes, 0u), "cuMemHostAlloc");
    check(env, call(d.cuMemAllocAsync, &slot.buffer, bytes, streams[i % lanes]), "cuMemAllocAsync");
    std::memset(slot.in, 1, bytes);
  }
  uint32_t words = static_cast<uint32_t>(bytes / 4);
  rxcuda::cu::LaunchConfig config{std::min(1024u, (words + 255) / 256), 1, 1, 256, 1, 1, 0, nullptr, nullptr, 0};
  volatile uint32_t seen = 0;
  // Mode 9's poller: slots whose event it watches, in the order they were recorded.
  std::mutex pollMutex;
  std::condition_variable pollWake;
  std::vector<uint32_t> polled;
  bool pollStop = false;
  std::thread pollThread;
  if (poller) {
    rxcuda::cu::Context ctx = nullptr;
    check(env, call(d.cuStreamGetCtx, streams[0], &ctx), "cuStreamGetCtx");
    pollThread = std::thread([&, ctx] {
      call(d.cuCtxSetCurrent, ctx);
      std::vector<uint32_t> mine;
      for (;;) {
        {
          std::unique_lock<std::mutex> lock(pollMutex);
          if (mine.empty()) pollWake.wait(lock, [&] { return pollStop || !polled.empty(); });
          if (pollStop && polled.empty() && mine.empty()) return;
          mine.insert(mine.end(), polled.begin(), polled.end());
          polled.clear();
        }
        if (mode == 11) {  // in order, asleep in the driver until each is done
          for (uint32_t slot : mine) {
            call(d.cuEventSynchronize, slots[slot].done);
            signalFrame(&signals[slot]);
          }
          mine.clear();
          continue;
        }
        for (size_t i = 0; i < mine.size();) {
          if (call(d.cuEventQuery, slots[mine[i]].done) == rxcuda::cu::kErrorNotReady) {
            i++;
            continue;
          }
          signalFrame(&signals[mine[i]]);
          mine.erase(mine.begin() + static_cast<long>(i));
        }
      }
    });
  }
  auto start = Clock::now();
  for (uint32_t f = 0; f < frames; f++) {
    Slot& slot = slots[f % inFlight];
    rxcuda::cu::Stream stream = streams[(f % inFlight) % lanes];
    if (slot.busy) {
      FrameSignal& signal = signals[f % inFlight];
      if (mode == 3 || mode == 7) {
        while (!signal.done.load(std::memory_order_acquire)) {
        }
      } else if (writeValue) {
        volatile uint32_t* word = doneWords + f % inFlight;
        while (*word != slot.frame + 1) {
        }
      } else if (mode == 4 || mode == 5 || mode == 9 || mode == 11) {
        std::unique_lock<std::mutex> lock(signalMutex);
        signalWake.wait(lock, [&] { return signal.done.load(std::memory_order_acquire); });
      } else {
        check(env, call(d.cuEventSynchronize, slot.done), "cuEventSynchronize");
      }
      signal.done.store(false);
      seen = seen + slot.out[0];
      if (seenAt) seenAt[slot.frame] = std::chrono::duration<double>(Clock::now() - start).count();
    }
    slot.frame = f;
    slot.in[0] = f;  // the frame header
    config.hStream = stream;
    void* params[] = {&slot.buffer, &words};
    if (queues) {
      check(env, call(d.cuMemcpyAsync, slot.buffer, reinterpret_cast<uintptr_t>(slot.in), bytes, downStreams[0]), "cuMemcpyAsync");
      check(env, call(d.cuEventRecord, slot.uploaded, downStreams[0]), "cuEventRecord");
      check(env, call(d.cuStreamWaitEvent, stream, slot.uploaded, 0u), "cuStreamWaitEvent");
    } else {
      if (spans) check(env, call(d.cuEventRecord, marks[4 * f], stream), "cuEventRecord");
      check(env, call(d.cuMemcpyAsync, slot.buffer, reinterpret_cast<uintptr_t>(slot.in), bytes, stream), "cuMemcpyAsync");
      if (spans) check(env, call(d.cuEventRecord, marks[4 * f + 1], stream), "cuEventRecord");
    }
    check(env, d.cuLaunchKernelEx(&config, fn, params, nullptr), "cuLaunchKernelEx");
    if (spans) check(env, call(d.cuEventRecord, marks[4 * f + 2], stream), "cuEventRecord");
    if (split || queues) {
      rxcuda::cu::Stream down = queues ? downStreams[1] : downStreams[(f % inFlight) % lanes];
      check(env, call(d.cuEventRecord, slot.computed, stream), "cuEventRecord");
      check(env, call(d.cuStreamWaitEvent, down, slot.computed, 0u), "cuStreamWaitEvent");
      stream = down;
    }
    check(env, call(d.cuMemcpyAsync, reinterpret_cast<uintptr_t>(slot.out), slot.buffer, bytes, stream), "cuMemcpyAsync");
    if (spans) check(env, call(d.cuEventRecord, marks[4 * f + 3], stream), "cuEventRecord");
    check(env, call(d.cuEventRecord, slot.done, stream), "cuEventRecord");
    if (sideNotify) {
      rxcuda::cu::Stream side = sides[(f % inFlight) % lanes];
      check(env, call(d.cuStreamWaitEvent, side, slot.done, 0u), "cuStreamWaitEvent");
      check(env, call(d.cuLaunchHostFunc, side, signalFrame, static_cast<void*>(&signals[f % inFlight])), "cuLaunchHostFunc");
    } else if (hostFunction) {
      check(env, call(d.cuLaunchHostFunc, stream, signalFrame, static_cast<void*>(&signals[f % inFlight])), "cuLaunchHostFunc");
    }
    if (poller) {
      std::lock_guard<std::mutex> lock(pollMutex);
      polled.push_back(f % inFlight);
      pollWake.notify_one();
    }
    if (writeValue) {
      rxcuda::cu::DevicePtr word = reinterpret_cast<uintptr_t>(doneWords + f % inFlight);
      check(env, call(d.cuStreamWriteValue32, stream, word, f + 1, 0u), "cuStreamWriteValue32");
    }
    slot.busy = true;
  }
  for (uint32_t k = 0; k < inFlight; k++) {
    Slot& slot = slots[(frames + k) % inFlight];  // oldest first
    if (slot.busy) {
      check(env, call(d.cuEventSynchronize, slot.done), "cuEventSynchronize");
      seen = seen + slot.out[0];
      if (seenAt) seenAt[slot.frame] = std::chrono::duration<double>(Clock::now() - start).count();
    }
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (poller) {
    {
      std::lock_guard<std::mutex> lock(pollMutex);
      pollStop = true;
      pollWake.notify_one();
    }
    pollThread.join();
  }
  for (size_t i = 0; i < marks.size(); i++) {
    float ms = 0;
    call(d.cuEventElapsedTime, &ms, marks[0], marks[i]);
    spans[i] = ms;
  }
  for (auto& mark : marks) call(d.cuEventDestroy, mark);
  for (uint32_t i = 0; i < inFlight; i++) {
    Slot& slot = slots[i];
    call(d.cuMemFreeAsync, slot.buffer, streams[i % lanes]);
    call(d.cuStreamSynchronize, streams[i % lanes]);
    call(d.cuMemFreeHost, slot.in);
    call(d.cuMemFreeHost, slot.out);
    call(d.cuEventDestroy, slot.done);
    call(d.cuEventDestroy, slot.computed);
    call(d.cuEventDestroy, slot.uploaded);
  }
  for (auto& stream : streams) call(d.cuStreamDestroy, stream);
  for (auto& stream : downStreams) call(d.cuStreamDestroy, stream);
  for (auto& stream : sides) {
    call(d.cuStreamSynchronize, stream);
    call(d.cuStreamDestroy, stream);
  }
  if (doneWords) call(d.cuMemFreeHost, doneWords);
  auto out = Napi::Object::New(env);
  out["seconds"] = seconds;
  return out;
}

// synchronize(stream: bigint): blocks until the stream is idle. Benchmarks use it for their untimed
// drains, so rxcuda and the baseline drain the same way.
Napi::Value synchronize(const Napi::CallbackInfo& info) {
  auto stream = streamArg(info[0]);
  check(info.Env(), call(driver().cuStreamSynchronize, stream), "cuStreamSynchronize");
  return info.Env().Undefined();
}

// noop(): an empty Node-API call, to show what crossing from JavaScript into C++ costs.
napi_value noop(napi_env, napi_callback_info) { return nullptr; }

Napi::Object init(Napi::Env env, Napi::Object exports) {
  exports["launchBursts"] = Napi::Function::New(env, launchBursts, "launchBursts");
  exports["graphBursts"] = Napi::Function::New(env, graphBursts, "graphBursts");
  exports["launchStore"] = Napi::Function::New(env, launchStore, "launchStore");
  exports["synchronize"] = Napi::Function::New(env, synchronize, "synchronize");
  exports["hostCallbackRoundTrips"] = Napi::Function::New(env, hostCallbackRoundTrips, "hostCallbackRoundTrips");
  exports["startObserver"] = Napi::Function::New(env, startObserver, "startObserver");
  exports["finishObserver"] = Napi::Function::New(env, finishObserver, "finishObserver");
  exports["createWaker"] = Napi::Function::New(env, createWaker, "createWaker");
  exports["launchAndWake"] = Napi::Function::New(env, launchAndWake, "launchAndWake");
  exports["closeWaker"] = Napi::Function::New(env, closeWaker, "closeWaker");
  exports["holdAndWake"] = Napi::Function::New(env, holdAndWake, "holdAndWake");
  exports["spinRoundTrips"] = Napi::Function::New(env, spinRoundTrips, "spinRoundTrips");
  exports["gateRoundTrips"] = Napi::Function::New(env, gateRoundTrips, "gateRoundTrips");
  exports["pipelineBaseline"] = Napi::Function::New(env, pipelineBaseline, "pipelineBaseline");
  exports["pinnedPipelineBaseline"] = Napi::Function::New(env, pinnedPipelineBaseline, "pinnedPipelineBaseline");
  napi_value fn = nullptr;
  napi_create_function(env, "noop", NAPI_AUTO_LENGTH, noop, nullptr, &fn);
  exports["noop"] = Napi::Value(env, fn);
  bench::defineLibraryBaselines(env, exports);
  bench::defineSmallFrameBaselines(env, exports);
  bench::defineConditionalBaselines(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(rxcuda_bench, init)
