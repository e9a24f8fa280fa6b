#include "device-thread.hpp"

#include <chrono>

#include "spinner.hpp"
#include "../driver/driver.hpp"

namespace rxcuda {
namespace {

// How long an idle device thread looks for more work before it sleeps: values that come this
// close together find it awake, and the main thread pays no wake-up for them.
constexpr std::chrono::microseconds kSpin{50};

constexpr size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

// Device work: skipped on a stream whose submission failed. Frees still go (stream-ordered, they
// are safe), records still go (another stream's wait for one would otherwise hang, or follow an
// older record), and completion commands still go, reporting the failure (see execute()).
bool isDeviceWork(Op op) {
  switch (op) {
    case Op::Launch: case Op::GraphLaunch: case Op::Wait: case Op::WriteValue:
    case Op::HostFunction: case Op::Copy: case Op::CopyPeer: case Op::Fill:
      return true;
    default:
      return false;
  }
}

// The record a completion command carries, if it is one.
Completion::Record* recordOf(Op op, const uint8_t* payload) {
  switch (op) {
    case Op::Notify: case Op::Mark:
      return reinterpret_cast<const RecordCommand*>(payload)->record;
    case Op::WatchEvent: case Op::WatchWord:
      return reinterpret_cast<const WatchCommand*>(payload)->record;
    default:
      return nullptr;
  }
}

cu::Result fill(const cu::Driver& d, cu::Stream s, const FillCommand& c, const char*& call) {
  switch (c.size) {
    case 1:
      call = "cuMemsetD8Async";
      return cu::call(d.cuMemsetD8Async, c.ptr, static_cast<unsigned char>(c.low), c.count, s);
    case 2:
      call = "cuMemsetD16Async";
      return cu::call(d.cuMemsetD16Async, c.ptr, static_cast<unsigned short>(c.low), c.count, s);
    case 4:
      call = "cuMemsetD32Async";
      return cu::call(d.cuMemsetD32Async, c.ptr, c.low, c.count, s);
    default: {
      // An 8-byte pattern as two strided 4-byte fills: one column of low words, one of high.
      call = "cuMemsetD2D32Async";
      cu::Result r = cu::call(d.cuMemsetD2D32Async, c.ptr, size_t{8}, c.low, size_t{1}, c.count, s);
      if (r != cu::kSuccess) return r;
      return cu::call(d.cuMemsetD2D32Async, c.ptr + 4, size_t{8}, c.high, size_t{1}, c.count, s);
    }
  }
}

// Where a launch payload's arguments start.
size_t argsAt(size_t params) { return align8(sizeof(LaunchCommand) + 4 * params); }

// A launch's payload (LaunchCommand, the parameters' offsets, the packed arguments): `params`
// points into its arguments, one per parameter.
const LaunchCommand& launchOf(const uint8_t* launch, std::vector<void*>& params) {
  const auto& c = *reinterpret_cast<const LaunchCommand*>(launch);
  const auto* offsets = reinterpret_cast<const uint32_t*>(launch + sizeof(LaunchCommand));
  const uint8_t* args = launch + argsAt(c.params);
  params.resize(c.params);
  for (uint32_t i = 0; i < c.params; i++) params[i] = const_cast<uint8_t*>(args) + offsets[i];
  return c;
}

// The place in another thread's queue a command must follow, if any.
After dependencyOf(const CommandHeader& h, const uint8_t* payload) {
  if (h.op == Op::Wait) return reinterpret_cast<const EventCommand*>(payload)->after;
  if (h.op == Op::GraphLaunch) return reinterpret_cast<const GraphLaunchCommand*>(payload)->after;
  return {};
}

// The driver call an injected failure names.
const char* injectedCall(Op op) {
  switch (op) {
    case Op::Launch: return "cuLaunchKernelEx";
    case Op::GraphLaunch: return "cuGraphLaunch";
    case Op::Wait: return "cuStreamWaitEvent";
    case Op::WriteValue: return "cuStreamWriteValue32";
    case Op::HostFunction: return "cuLaunchHostFunc";
    case Op::Copy: return "cuMemcpyAsync";
    case Op::CopyPeer: return "cuMemcpyPeerAsync";
    default: return "cuMemsetD32Async";
  }
}

}  // namespace

uint32_t commandBytes(size_t payload, size_t extra) {
  return static_cast<uint32_t>(align8(sizeof(CommandHeader) + payload + extra));
}

size_t launchPayloadBytes(size_t params, size_t argBytes) { return argsAt(params) + argBytes; }

void writeLaunchPayload(uint8_t* at, cu::Function fn, const uint8_t* header, const std::vector<uint32_t>& offsets,
                        const uint8_t* args, size_t argBytes) {
  auto* c = reinterpret_cast<LaunchCommand*>(at);
  c->fn = fn;
  std::memcpy(c->header, header, sizeof c->header);
  c->params = static_cast<uint32_t>(offsets.size());
  c->argBytes = static_cast<uint32_t>(argBytes);
  std::memcpy(at + sizeof(LaunchCommand), offsets.data(), 4 * offsets.size());
  std::memcpy(at + argsAt(offsets.size()), args, argBytes);
}

cu::Result submitCommand(const CommandHeader& h, const uint8_t* payload, std::vector<void*>& params,
                         const char*& call) {
  const cu::Driver& d = cu::driver();
  LaneState* lane = h.lane;  // null for an executable's update
  cu::Stream s = lane ? lane->stream : nullptr;
  switch (h.op) {
    case Op::Launch: {
      const auto& c = launchOf(payload, params);
      const uint32_t* g = c.header;
      cu::LaunchAttribute attrs[2];
      unsigned n = 0;
      if (g[kFlags] & kFlagCooperative) {
        attrs[n].id = cu::kLaunchAttrCooperative;
        attrs[n].value.cooperative = 1;
        n++;
      }
      if (g[kFlags] & kFlagCluster) {
        attrs[n].id = cu::kLaunchAttrClusterDimension;
        attrs[n].value.clusterDim = {g[kClusterX], g[kClusterY], g[kClusterZ]};
        n++;
      }
      cu::LaunchConfig config{g[kGridX],  g[kGridY],  g[kGridZ],     g[kBlockX],          g[kBlockY],
                              g[kBlockZ], g[kSharedMem], s, n ? attrs : nullptr, n};
      call = "cuLaunchKernelEx";
      return cu::call(d.cuLaunchKernelEx, &config, c.fn, params.empty() ? nullptr : params.data(),
                      static_cast<void**>(nullptr));
    }
    case Op::GraphLaunch:
      call = "cuGraphLaunch";
      return cu::call(d.cuGraphLaunch, reinterpret_cast<const GraphLaunchCommand*>(payload)->exec, s);
    case Op::Record:
      call = "cuEventRecord";
      return cu::call(d.cuEventRecord, reinterpret_cast<const EventCommand*>(payload)->event, s);
    case Op::Wait:
      call = "cuStreamWaitEvent";
      return cu::call(d.cuStreamWaitEvent, s, reinterpret_cast<const EventCommand*>(payload)->event, 0u);
    case Op::Notify: {
      const auto& c = *reinterpret_cast<const NotifyCommand*>(payload);
      cu::Stream target = s;
      if (c.offStream) {
        call = "cuEventRecord";
        if (cu::Result e = cu::call(d.cuEventRecord, lane->notified, s); e != cu::kSuccess) return e;
        call = "cuStreamWaitEvent";
        if (cu::Result e = cu::call(d.cuStreamWaitEvent, lane->notifier, lane->notified, 0u); e != cu::kSuccess) return e;
        target = lane->notifier;
      }
      call = "cuStreamAddCallback";
      return cu::call(d.cuStreamAddCallback, target, &Completion::streamCallback, c.record, 0u);
    }
    case Op::WatchEvent: {
      const auto& c = *reinterpret_cast<const WatchCommand*>(payload);
      call = "cuEventRecord";
      if (cu::Result e = cu::call(d.cuEventRecord, c.event, s); e != cu::kSuccess) return e;
      c.spinner->watchEvent(c.event, lane->ctx, c.record, std::chrono::microseconds(c.microseconds), s);
      return cu::kSuccess;
    }
    case Op::WatchWord: {
      const auto& c = *reinterpret_cast<const WatchCommand*>(payload);
      call = "cuStreamWriteValue32";
      if (cu::Result e = cu::call(d.cuStreamWriteValue32, s, c.address, c.value, 0u); e != cu::kSuccess) return e;
      c.spinner->watch(reinterpret_cast<const volatile uint32_t*>(c.address), c.value, c.record,
                       std::chrono::microseconds(c.microseconds), false);
      return cu::kSuccess;
    }
    case Op::WriteValue: {
      const auto& c = *reinterpret_cast<const WordCommand*>(payload);
      call = "cuStreamWriteValue32";
      return cu::call(d.cuStreamWriteValue32, s, c.address, c.value, 0u);
    }
    case Op::HostFunction: {
      const auto& c = *reinterpret_cast<const HostFunctionCommand*>(payload);
      call = "cuLaunchHostFunc";
      return cu::call(d.cuLaunchHostFunc, s, c.fn, c.data);
    }
    case Op::Free:
      call = "cuMemFreeAsync";
      return cu::call(d.cuMemFreeAsync, reinterpret_cast<const CopyCommand*>(payload)->dst, s);
    case Op::Copy: {
      const auto& c = *reinterpret_cast<const CopyCommand*>(payload);
      call = "cuMemcpyAsync";
      return cu::call(d.cuMemcpyAsync, c.dst, c.src, c.bytes, s);
    }
    case Op::CopyPeer: {
      const auto& c = *reinterpret_cast<const CopyCommand*>(payload);
      call = "cuMemcpyPeerAsync";
      return cu::call(d.cuMemcpyPeerAsync, c.dst, c.dstCtx, c.src, c.srcCtx, c.bytes, s);
    }
    case Op::Fill:
      return fill(d, s, *reinterpret_cast<const FillCommand*>(payload), call);
    case Op::ExecKernel: {
      const auto& u = *reinterpret_cast<const ExecUpdateCommand*>(payload);
      const auto& c = launchOf(payload + sizeof(ExecUpdateCommand), params);
      const uint32_t* g = c.header;
      cu::KernelNodeParams p{c.fn,       g[kGridX],  g[kGridY],     g[kGridZ],
                             g[kBlockX], g[kBlockY], g[kBlockZ],    g[kSharedMem],
                             params.empty() ? nullptr : params.data(), nullptr, nullptr, nullptr};
      call = "cuGraphExecKernelNodeSetParams";
      return cu::call(d.cuGraphExecKernelNodeSetParams, u.exec, u.node, &p);
    }
    case Op::ExecCopy: {
      const auto& u = *reinterpret_cast<const ExecUpdateCommand*>(payload);
      call = "cuGraphExecMemcpyNodeSetParams";
      return cu::call(d.cuGraphExecMemcpyNodeSetParams, u.exec, u.node, &u.copy, u.ctx);
    }
    case Op::ExecFill: {
      const auto& u = *reinterpret_cast<const ExecUpdateCommand*>(payload);
      call = "cuGraphExecMemsetNodeSetParams";
      return cu::call(d.cuGraphExecMemsetNodeSetParams, u.exec, u.node, &u.fill, u.ctx);
    }
    case Op::Mark: case Op::Release:
      return cu::kSuccess;
  }
  return cu::kSuccess;
}

DeviceThread::DeviceThread(SubmitFailures& failures) : failures_(failures) {
  thread_ = std::thread([this] { run(); });
}

void DeviceThread::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_one();
}

DeviceThread::~DeviceThread() {
  stop();
  if (thread_.joinable()) thread_.join();
}

uint8_t* DeviceThread::begin(Op op, LaneState* lane, size_t payload, size_t extra) {
  mutex_.lock();
  open_ = incoming_.size();
  uint32_t bytes = commandBytes(payload, extra);
  try {
    incoming_.resize(open_ + bytes);
  } catch (...) {
    mutex_.unlock();  // out of memory: the command is not given, the queue stays usable
    throw;
  }
  auto* h = reinterpret_cast<CommandHeader*>(incoming_.data() + open_);
  h->bytes = bytes;
  h->op = op;
  h->lane = lane;
  return incoming_.data() + open_ + sizeof(CommandHeader);
}

void DeviceThread::commit(cu::Context* callerCurrent) {
  given_++;
  if (callerCurrent && sleeping_ && open_ == 0) {
    const auto& h = *reinterpret_cast<const CommandHeader*>(incoming_.data());
    const uint8_t* payload = incoming_.data() + sizeof(CommandHeader);
    cu::Context ctx = h.lane ? h.lane->ctx : reinterpret_cast<const ExecUpdateCommand*>(payload)->ctx;
    if (reached(dependencyOf(h, payload)) &&
        (*callerCurrent == ctx || cu::call(cu::driver().cuCtxSetCurrent, ctx) == cu::kSuccess)) {
      *callerCurrent = ctx;
      // The thread is parked on ready_ and cannot wake without the lock held here.
      execute(h, payload, true);
      incoming_.clear();
      submitted_.fetch_add(1, std::memory_order_release);
      mutex_.unlock();
      // Woken all the same: it looks for work for a while, so that the commands that follow take
      // the thread, not the caller (else the caller would submit everything once it had started).
      ready_.notify_one();
      return;
    }
  }
  bool wake = sleeping_;
  hasWork_.store(true, std::memory_order_release);
  mutex_.unlock();
  if (wake) ready_.notify_one();
}

void DeviceThread::drain() const { waitFor(last()); }

void DeviceThread::enter(cu::Context ctx) {
  if (ctx == current_) return;
  if (cu::call(cu::driver().cuCtxSetCurrent, ctx) == cu::kSuccess) current_ = ctx;
}

void DeviceThread::run() {
  for (;;) {
    auto until = std::chrono::steady_clock::now() + kSpin;
    while (!hasWork_.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < until) {
    }
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (incoming_.empty() && !stopping_) {
        sleeping_ = true;
        ready_.wait(lock);
        sleeping_ = false;
        // Woken with nothing to take (a spurious wake-up, or a caller that submitted a command
        // itself): look for work a while before sleeping again.
        if (incoming_.empty() && !stopping_) continue;
      }
      if (incoming_.empty()) return;  // stopping, with everything submitted
      batch_.swap(incoming_);
      hasWork_.store(false, std::memory_order_relaxed);
    }
    for (size_t at = 0; at < batch_.size();) {
      const auto& h = *reinterpret_cast<const CommandHeader*>(batch_.data() + at);
      execute(h, batch_.data() + at + sizeof(CommandHeader));
      at += h.bytes;
      submitted_.fetch_add(1, std::memory_order_release);
    }
    batch_.clear();
  }
}

void DeviceThread::waitFor(After after) const {
  // Its own place is reached once it has been submitted: drain() waits for this thread itself.
  const DeviceThread* thread = after.thread;
  for (int spins = 0; thread && thread->submitted() < after.position; spins++)
    if (spins > 64) std::this_thread::yield();
}

void DeviceThread::execute(const CommandHeader& h, const uint8_t* payload, bool here) {
  if (!h.lane) {
    // An executable's update: its failure is reported as its stream's.
    const auto& u = *reinterpret_cast<const ExecUpdateCommand*>(payload);
    if (!here) enter(u.ctx);
    const char* call = "";
    cu::Result r = submitCommand(h, payload, params_, call);
    if (r != cu::kSuccess) failures_.announce(u.reportAs, r, call);
    return;
  }
  LaneState& lane = *h.lane;
  if (!here) enter(lane.ctx);
  if (h.op == Op::Release) {
    const cu::Driver& d = cu::driver();
    if (lane.notifier) cu::call(d.cuStreamDestroy, lane.notifier);
    if (lane.notified) cu::call(d.cuEventDestroy, lane.notified);
    cu::call(d.cuStreamDestroy, lane.stream);  // queued work completes first, as the driver says
    delete &lane;
    return;
  }
  int32_t failed = lane.failed.load(std::memory_order_relaxed);
  Completion::Record* record = recordOf(h.op, payload);
  if (h.op == Op::Mark) return Completion::push(record, failed);
  if (failed && isDeviceWork(h.op)) return;
  if (failed && record) {
    // The stream's work after its failure was skipped: the completion reports the failure, once
    // the work before it has completed (what it holds stays alive until then).
    record->failure = failed;
    if (cu::call(cu::driver().cuStreamAddCallback, lane.stream, &Completion::streamCallback, record, 0u) !=
        cu::kSuccess)
      Completion::push(record, failed);
    return;
  }
  // The record a wait waits for, or an executable's earlier commands, went to another device
  // thread: they reach the driver first.
  if (After after = dependencyOf(h, payload); !reached(after)) waitFor(after);
  const char* call = "";
  cu::Result r = cu::kSuccess;
  int32_t injected = isDeviceWork(h.op) ? lane.failNext.exchange(0, std::memory_order_relaxed) : 0;
  if (injected) {
    r = static_cast<cu::Result>(injected);
    call = injectedCall(h.op);
  } else {
    r = submitCommand(h, payload, params_, call);
  }
  if (r == cu::kSuccess) return;
  if (record) Completion::push(record, r);
  announce(lane, r, call);
}

void DeviceThread::announce(LaneState& lane, cu::Result r, const char* call) {
  int32_t expected = 0;
  if (!lane.failed.compare_exchange_strong(expected, r, std::memory_order_relaxed)) return;
  failures_.announce(lane.stream, r, call);
}

}  // namespace rxcuda
