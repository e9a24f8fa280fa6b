// The C++ twin of bench/small-frames.mjs: small frames through upload → K kernels → download, on
// `lanes` streams with two frames in flight per stream, the host waiting for each stream's oldest
// frame before it reuses its slot, as a plain C++ program against the driver API would run them:
// eager (a copy, K launches and a copy per frame) or one graph launch per frame (a graph per slot,
// made and instantiated before the clock starts). Each frame's input is copied from one array
// into the slot's pinned staging, and its result out of the slot's pinned staging into one array,
// on this thread, as rxcuda's pageable road does.
#include "small-frames.hpp"

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <ctime>
#include <string>
#include <vector>

#include "../../native/src/driver/baseline-driver.hpp"

namespace bench {
namespace {

namespace cu = rxcuda::cu;
using Clock = std::chrono::steady_clock;

uint64_t bigintArg(const Napi::Value& v) {
  bool lossless = false;
  return v.As<Napi::BigInt>().Uint64Value(&lossless);
}

void check(Napi::Env env, cu::Result r, const char* what) {
  if (r != cu::kSuccess) throw Napi::Error::New(env, std::string(what) + " failed: " + cu::errorName(r));
}

uint32_t option(const Napi::Object& options, const char* name) {
  return options.Get(name).As<Napi::Number>().Uint32Value();
}

double threadSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// One frame in flight: its stream, pinned staging in and out, device buffer, and the event the
// host waits on before it reuses the slot.
struct Slot {
  cu::Stream stream = nullptr;
  float* in = nullptr;
  float* out = nullptr;
  cu::DevicePtr buffer = 0;
  cu::Event done = nullptr;
  cu::GraphExec exec = nullptr;
  bool busy = false;
  // With a watcher thread: the frame number + 1 the slot's work ends with, and the one seen.
  std::atomic<uint32_t> armed{0};
  std::atomic<uint32_t> seen{0};
  std::atomic<int> failed{0};  // the watcher's failed query (its CUresult), which the host reports
  volatile uint32_t* word = nullptr;  // the watcher's word (kWords): the stream writes armed there
};

// How the host learns that a slot's frame is done: it waits on the slot's event itself, or a
// second thread watches for it and the host waits for that thread: querying each slot's event
// (cuEventQuery, back to back: rxcuda's watcher queries only each stream's oldest and pauses when
// none completed, so this is the unpaced cost), or reading a word the stream writes behind the
// frame (cuStreamWriteValue32). What the word watch costs the host's driver calls is what a
// watcher's queries cost them.
enum Watcher : uint32_t { kNone = 0, kEvents = 1, kWords = 2 };

// The watcher thread's loop: marks each armed slot seen once its event has completed or its word
// holds the armed value.
void watchSlots(const cu::BaselineDriver& d, cu::Context ctx, std::vector<Slot>& slots, Watcher how,
                const std::atomic<bool>& stop) {
  cu::call(d.cuCtxSetCurrent, ctx);
  while (!stop.load(std::memory_order_relaxed)) {
    for (Slot& slot : slots) {
      uint32_t armed = slot.armed.load(std::memory_order_acquire);
      if (armed == 0 || slot.seen.load(std::memory_order_relaxed) == armed) continue;
      bool done = how == kWords && *slot.word == armed;
      if (how == kEvents) {
        cu::Result r = cu::call(d.cuEventQuery, slot.done);
        if (r != cu::kSuccess && r != cu::kErrorNotReady) slot.failed.store(static_cast<int>(r), std::memory_order_release);
        done = r == cu::kSuccess;
      }
      if (done) slot.seen.store(armed, std::memory_order_release);
    }
  }
}

// The slot's frame as one graph: the upload, the kernels in a chain, the download.
cu::GraphExec frameGraph(Napi::Env env, const cu::BaselineDriver& d, cu::Context ctx, cu::Function fn, const Slot& slot,
                         uint32_t floats, uint32_t kernels) {
  cu::Graph graph = nullptr;
  check(env, cu::call(d.cuGraphCreate, &graph, 0u), "cuGraphCreate");
  size_t bytes = size_t{floats} * sizeof(float);
  auto copy = [&](cu::DevicePtr dst, cu::DevicePtr src) {
    cu::Memcpy3D p{};
    p.srcMemoryType = cu::kMemoryTypeUnified;
    p.srcDevice = src;
    p.dstMemoryType = cu::kMemoryTypeUnified;
    p.dstDevice = dst;
    p.WidthInBytes = bytes;
    p.Height = 1;
    p.Depth = 1;
    return p;
  };
  cu::GraphNode last = nullptr;
  auto addCopy = [&](cu::DevicePtr dst, cu::DevicePtr src) {
    cu::Memcpy3D p = copy(dst, src);
    cu::GraphNode node = nullptr;
    check(env, cu::call(d.cuGraphAddMemcpyNode, &node, graph, last ? &last : nullptr, last ? size_t{1} : size_t{0}, &p, ctx),
          "cuGraphAddMemcpyNode");
    last = node;
  };
  addCopy(slot.buffer, reinterpret_cast<uintptr_t>(slot.in));
  for (uint32_t k = 0; k < kernels; k++) {
    uint32_t n = floats;
    float a = static_cast<float>(k);
    cu::DevicePtr x = slot.buffer;
    void* params[] = {&n, &a, &x};
    cu::KernelNodeParams p{fn, (floats + 255) / 256, 1, 1, 256, 1, 1, 0, params, nullptr, nullptr, nullptr};
    cu::GraphNode node = nullptr;
    check(env, cu::call(d.cuGraphAddKernelNode, &node, graph, &last, size_t{1}, &p), "cuGraphAddKernelNode");
    last = node;
  }
  addCopy(reinterpret_cast<uintptr_t>(slot.out), slot.buffer);
  cu::GraphExec exec = nullptr;
  cu::Result r = cu::call(d.cuGraphInstantiateWithFlags, &exec, graph, 0ull);
  cu::call(d.cuGraphDestroy, graph);
  check(env, r, "cuGraphInstantiateWithFlags");
  return exec;
}

// smallFrames(fn: bigint, stream: bigint (for its context), source: Float32Array, { frames, kernels,
// lanes, graph, watcher = 0 (see Watcher) }) -> { seconds, threadSeconds, launchSeconds, copySeconds, last }: `frames` frames of source.length floats,
// each `add(n, k, x)` for k = 0..kernels-1 (grid ⌈n / 256⌉ × 256). `last` is the last frame's
// first result, for the caller to check.
Napi::Value smallFrames(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto fn = reinterpret_cast<cu::Function>(bigintArg(info[0]));
  auto given = reinterpret_cast<cu::Stream>(bigintArg(info[1]));
  auto source = info[2].As<Napi::Float32Array>();
  auto options = info[3].As<Napi::Object>();
  uint32_t frames = option(options, "frames");
  uint32_t kernels = option(options, "kernels");
  uint32_t lanes = option(options, "lanes");
  bool graph = options.Get("graph").ToBoolean().Value();
  auto how = static_cast<Watcher>(options.Has("watcher") ? option(options, "watcher") : 0u);
  if (how > kWords) throw Napi::RangeError::New(env, "Expected `watcher` to be 0 (none), 1 (events) or 2 (words)");
  uint32_t floats = static_cast<uint32_t>(source.ElementLength());
  size_t bytes = size_t{floats} * sizeof(float);
  const auto& d = cu::baselineDriver();
  cu::Context ctx = nullptr;
  check(env, cu::call(d.cuStreamGetCtx, given, &ctx), "cuStreamGetCtx");
  check(env, cu::call(d.cuCtxSetCurrent, ctx), "cuCtxSetCurrent");

  std::vector<cu::Stream> streams(lanes);
  for (auto& stream : streams) check(env, cu::call(d.cuStreamCreateWithPriority, &stream, cu::kStreamNonBlocking, 0), "cuStreamCreate");
  std::vector<Slot> slots(2 * size_t{lanes});
  for (size_t i = 0; i < slots.size(); i++) {
    Slot& slot = slots[i];
    slot.stream = streams[i % lanes];
    check(env, cu::call(d.cuMemHostAlloc, reinterpret_cast<void**>(&slot.in), bytes, 0u), "cuMemHostAlloc");
    check(env, cu::call(d.cuMemHostAlloc, reinterpret_cast<void**>(&slot.out), bytes, 0u), "cuMemHostAlloc");
    check(env, cu::call(d.cuMemAllocAsync, &slot.buffer, bytes, slot.stream), "cuMemAllocAsync");
    check(env, cu::call(d.cuEventCreate, &slot.done, cu::kEventDisableTiming), "cuEventCreate");
  }
  uint32_t* words = nullptr;
  if (how == kWords) {
    check(env, cu::call(d.cuMemHostAlloc, reinterpret_cast<void**>(&words), sizeof(uint32_t) * slots.size(), 0u), "cuMemHostAlloc");
    std::memset(words, 0, sizeof(uint32_t) * slots.size());
    for (size_t i = 0; i < slots.size(); i++) slots[i].word = words + i;
  }
  for (auto& stream : streams) check(env, cu::call(d.cuStreamSynchronize, stream), "cuStreamSynchronize");
  if (graph)
    for (auto& slot : slots) slot.exec = frameGraph(env, d, ctx, fn, slot, floats, kernels);

  std::vector<float> result(floats);
  cu::LaunchConfig config{(floats + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, nullptr, 0};
  auto finish = [&](Slot& slot) {
    if (how == kNone) {
      check(env, cu::call(d.cuEventSynchronize, slot.done), "cuEventSynchronize");
    } else {
      uint32_t armed = slot.armed.load(std::memory_order_relaxed);
      auto until = Clock::now() + std::chrono::seconds(10);  // a word a faulted stream never writes
      while (slot.seen.load(std::memory_order_acquire) != armed) {
        if (int r = slot.failed.load(std::memory_order_acquire)) check(env, static_cast<cu::Result>(r), "cuEventQuery");
        if (Clock::now() > until) throw Napi::Error::New(env, "a frame's completion was not seen within 10 s");
      }
    }
    std::memcpy(result.data(), slot.out, bytes);
    slot.busy = false;
  };
  // Time spent inside the launch calls (cuGraphLaunch, or the kernel launches) and the copies'
  // calls, apart: what a frame's driver calls cost this thread, beside rxcuda's profile of its own.
  Clock::duration inLaunches{}, inCopies{};
  std::atomic<bool> stop{false};
  std::thread watcher;
  if (how != kNone) watcher = std::thread([&] { watchSlots(d, ctx, slots, how, stop); });
  struct Joined {  // the watcher stops before this function leaves, whether it returns or throws
    std::atomic<bool>& stop;
    std::thread& thread;
    ~Joined() {
      stop.store(true);
      if (thread.joinable()) thread.join();
    }
  } joined{stop, watcher};
  double cpu0 = threadSeconds();
  auto start = Clock::now();
  for (uint32_t f = 0; f < frames; f++) {
    Slot& slot = slots[f % slots.size()];
    if (slot.busy) finish(slot);
    std::memcpy(slot.in, source.Data(), bytes);
    if (graph) {
      auto t0 = Clock::now();
      check(env, cu::call(d.cuGraphLaunch, slot.exec, slot.stream), "cuGraphLaunch");
      inLaunches += Clock::now() - t0;
    } else {
      auto t0 = Clock::now();
      check(env, cu::call(d.cuMemcpyAsync, slot.buffer, reinterpret_cast<uintptr_t>(slot.in), bytes, slot.stream), "cuMemcpyAsync");
      auto t1 = Clock::now();
      config.hStream = slot.stream;
      for (uint32_t k = 0; k < kernels; k++) {
        uint32_t n = floats;
        float a = static_cast<float>(k);
        void* params[] = {&n, &a, &slot.buffer};
        check(env, d.cuLaunchKernelEx(&config, fn, params, nullptr), "cuLaunchKernelEx");
      }
      auto t2 = Clock::now();
      check(env, cu::call(d.cuMemcpyAsync, reinterpret_cast<uintptr_t>(slot.out), slot.buffer, bytes, slot.stream), "cuMemcpyAsync");
      inCopies += (t1 - t0) + (Clock::now() - t2);
      inLaunches += t2 - t1;
    }
    uint32_t armed = f + 1;
    if (how == kWords)
      check(env, cu::call(d.cuStreamWriteValue32, slot.stream, reinterpret_cast<uintptr_t>(slot.word), armed, 0u), "cuStreamWriteValue32");
    else
      check(env, cu::call(d.cuEventRecord, slot.done, slot.stream), "cuEventRecord");
    slot.armed.store(armed, std::memory_order_release);
    slot.busy = true;
  }
  for (size_t k = 0; k < slots.size(); k++) {  // the oldest first
    Slot& slot = slots[(frames + k) % slots.size()];
    if (slot.busy) finish(slot);
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  double cpu = threadSeconds() - cpu0;
  stop.store(true);
  if (watcher.joinable()) watcher.join();  // before the slots' events and words go

  for (auto& slot : slots) {
    if (slot.exec) cu::call(d.cuGraphExecDestroy, slot.exec);
    cu::call(d.cuMemFreeAsync, slot.buffer, slot.stream);
  }
  for (auto& stream : streams) cu::call(d.cuStreamSynchronize, stream);
  for (auto& slot : slots) {
    cu::call(d.cuMemFreeHost, slot.in);
    cu::call(d.cuMemFreeHost, slot.out);
    cu::call(d.cuEventDestroy, slot.done);
  }
  for (auto& stream : streams) cu::call(d.cuStreamDestroy, stream);
  if (words) cu::call(d.cuMemFreeHost, words);
  auto out = Napi::Object::New(env);
  out["seconds"] = seconds;
  out["threadSeconds"] = cpu;
  out["launchSeconds"] = std::chrono::duration<double>(inLaunches).count();
  out["copySeconds"] = std::chrono::duration<double>(inCopies).count();
  out["last"] = static_cast<double>(result[0]);
  return out;
}

}  // namespace

void defineSmallFrameBaselines(Napi::Env env, Napi::Object exports) {
  exports["smallFrames"] = Napi::Function::New(env, smallFrames, "smallFrames");
}

}  // namespace bench
