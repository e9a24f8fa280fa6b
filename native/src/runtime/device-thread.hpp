// The device thread: a native thread that owns a device's driver traffic for the streams given to
// it. The main thread appends stream commands (launches with their packed arguments, graph
// launches, copies, fills, records, waits, completion marks) to its queue and returns; the thread
// submits them to the driver in the order given, and reports a failed submission asynchronously
// (a notice on the completion queue, and the failure as the status of the stream's later
// completions). Nothing here calls JavaScript or waits for it.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "completion.hpp"
#include "launch-block.hpp"
#include "../driver/types.hpp"

namespace rxcuda {

class Spinner;
class DeviceThread;

// A stream as its device thread sees it. Made on the main thread when an owned stream is created;
// the thread deletes it when it reaches the stream's Release command, after everything before it.
struct LaneState {
  cu::Stream stream = nullptr;
  cu::Context ctx = nullptr;
  DeviceThread* thread = nullptr;
  // The notification side stream and its event (see StreamObject::notify), made on first use.
  cu::Stream notifier = nullptr;
  cu::Event notified = nullptr;
  // The CUresult of the first submission that failed (the device thread's; read by the main thread
  // for the failure notice): nothing of the stream's device work is submitted after it.
  std::atomic<int32_t> failed{0};
  // The next device work fails with this CUresult instead of reaching the driver (tests).
  std::atomic<int32_t> failNext{0};
};

enum class Op : uint8_t {
  Launch, GraphLaunch, Record, Wait, Notify, WatchEvent, WatchWord, WriteValue,
  HostFunction, Free, Copy, CopyPeer, Fill, Mark, Release,
  // An executable's parameter updates: they name no stream (the command's lane is null).
  ExecKernel, ExecCopy, ExecFill,
};

// A place in a device thread's queue: the first `position` commands given to `thread`. A command
// that must follow it (a wait for an event recorded there, a launch of an executable used there
// last) waits until that thread has submitted them, when it is another thread. No thread: nothing
// to wait for.
struct After {
  const DeviceThread* thread = nullptr;
  uint64_t position = 0;
};

// Every command starts with this; its payload follows, 8-byte aligned.
struct CommandHeader {
  uint32_t bytes;  // the whole command, header and payload
  Op op;
  LaneState* lane;
};

// The payloads.
struct LaunchCommand {
  cu::Function fn;
  uint32_t header[kLaunchHeaderWords];
  uint32_t params;  // parameter count; their offsets follow, then the packed arguments
  uint32_t argBytes;
};
// The bytes of a launch's payload: LaunchCommand, `params` offsets, then `argBytes` of arguments.
size_t launchPayloadBytes(size_t params, size_t argBytes);
// Writes that payload at `at`, from a launch block's two parts: its header and its arguments.
void writeLaunchPayload(uint8_t* at, cu::Function fn, const uint8_t* header, const std::vector<uint32_t>& offsets,
                        const uint8_t* args, size_t argBytes);
// Commands on an executable are ordered across threads (the driver takes one executable from one
// thread at a time): a launch follows the executable's latest command on another thread.
struct GraphLaunchCommand {
  cu::GraphExec exec;
  After after;
};
// An update: the executable's node and context, and the stream whose error a failure is reported
// as (where it was launched last). It goes to the thread that launched the executable last, so it
// waits for nothing. ExecKernel's launch payload follows.
struct ExecUpdateCommand {
  cu::GraphExec exec;
  cu::GraphNode node;
  cu::Context ctx;
  cu::Stream reportAs;
  union {
    cu::Memcpy3D copy;
    cu::MemsetNodeParams fill;
  };
};
struct EventCommand {
  cu::Event event;
  After after;  // a Wait: the event's record, where it was given
};
struct RecordCommand { Completion::Record* record; };
// notify()'s flags: TypeScript passes them (src/core/native/types.ts) and checks its values
// against these, exported as `notifyFlags`, when it loads the addon.
constexpr uint32_t kNotifyRefuseCapture = 2;
constexpr uint32_t kNotifyOffStream = 4;
// A notification: on the stream, or (offStream) on its notifier behind an event of the stream.
struct NotifyCommand { Completion::Record* record; uint32_t offStream; };
struct WatchCommand {
  Completion::Record* record;
  Spinner* spinner;
  cu::Event event;            // WatchEvent
  uint64_t address;           // WatchWord
  uint32_t value;
  int64_t microseconds;
};
struct WordCommand { uint64_t address; uint32_t value; };
struct HostFunctionCommand { cu::HostFn fn; void* data; };
struct CopyCommand { cu::DevicePtr dst, src; size_t bytes; cu::Context dstCtx, srcCtx; };
struct FillCommand { cu::DevicePtr ptr; size_t count; uint32_t size, low, high; };

// A failed submission, for the main thread's failure notice.
struct SubmitFailure {
  cu::Stream stream;  // the stream's handle (a host-device stream's queue)
  int32_t code;
  const char* call;
};

// The failed submissions not yet told, shared by the device threads and host-device streams (whose
// work may outlive the environment: the completion queue is retained until the last holder
// releases it).
class SubmitFailures {
 public:
  explicit SubmitFailures(Completion* completions) : completions_(completions) {
    completions_->retain();
  }
  ~SubmitFailures() { completions_->release(); }
  SubmitFailures(const SubmitFailures&) = delete;
  SubmitFailures& operator=(const SubmitFailures&) = delete;
  // Any thread: notes the failure, and sends a notice (id 0) on the completion queue.
  void announce(cu::Stream stream, int32_t code, const char* call) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      list_.push_back({stream, code, call});
    }
    completions_->notice(code);
  }
  std::vector<SubmitFailure> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<SubmitFailure> out;
    out.swap(list_);
    return out;
  }

 private:
  Completion* completions_;
  std::mutex mutex_;
  std::vector<SubmitFailure> list_;
};

// The size of a command of `payload` bytes plus `extra`, header included.
uint32_t commandBytes(size_t payload, size_t extra);

// Makes one command's driver calls (the device thread's, or the main thread's for a stream that
// is not given to one); returns the failing CUresult and names the call. `params` is scratch.
cu::Result submitCommand(const CommandHeader& h, const uint8_t* payload, std::vector<void*>& params,
                         const char*& call);

class DeviceThread {
 public:
  // A failed submission is announced through `failures`, which outlives the thread.
  explicit DeviceThread(SubmitFailures& failures);
  ~DeviceThread();  // submits what is still queued, then joins
  // Asks the thread to end once it has submitted what it holds (the destructor waits for it).
  void stop();
  // Ends the thread (after stop()): what it held is submitted.
  void join() {
    if (thread_.joinable()) thread_.join();
  }

  // Appends a command of `payload` bytes (plus `extra` after it) for `lane`, and returns the
  // payload's address to fill before commit(). The queue stays locked in between: main thread only.
  uint8_t* begin(Op op, LaneState* lane, size_t payload, size_t extra = 0);
  // Gives the command. With `callerCurrent` (the main thread's current context, kept up to date
  // here), a command given while the thread sleeps with nothing queued, and that waits for no
  // other thread, is submitted by the caller at once, and the thread woken for what follows: a
  // lone command would otherwise pay the thread's wake-up (tens of µs), and with the thread idle
  // no driver calls compete.
  void commit(cu::Context* callerCurrent = nullptr);

  // Commands given so far (main thread), and submitted so far (any thread).
  uint64_t given() const { return given_; }
  // The place of the command given last (main thread).
  After last() const { return {this, given_}; }
  uint64_t submitted() const { return submitted_.load(std::memory_order_acquire); }
  // Waits until everything given has been submitted (main thread): the thread never waits for
  // JavaScript, so this takes at most the driver's time for what is queued.
  void drain() const;
  bool drained() const { return submitted() == given_; }

 private:
  void run();
  // `here`: on the caller's thread, whose context the caller made current.
  void execute(const CommandHeader& h, const uint8_t* payload, bool here = false);
  // Whether `after` needs no waiting here: none, this thread's own, or submitted already.
  bool reached(After after) const {
    return !after.thread || after.thread == this || after.thread->submitted() >= after.position;
  }
  // Waits, spinning and then yielding, until `after` is reached.
  void waitFor(After after) const;
  void enter(cu::Context ctx);
  void announce(LaneState& lane, cu::Result r, const char* call);

  SubmitFailures& failures_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<uint8_t> incoming_, batch_;  // whole commands, back to back
  size_t open_ = 0;                        // where begin()'s command starts in incoming_
  bool sleeping_ = false, stopping_ = false;
  std::atomic<bool> hasWork_{false};
  uint64_t given_ = 0;
  std::atomic<uint64_t> submitted_{0};
  cu::Context current_ = nullptr;  // the thread's current context
  std::vector<void*> params_;      // the thread's: a launch's parameter pointers
  std::thread thread_;
};

}  // namespace rxcuda
