#include "stream.hpp"

#include "device.hpp"
#include "event.hpp"

#include <cstring>

namespace rxcuda {

void StreamObject::define(Napi::Env env, Napi::Object exports) {
  std::vector<PropertyDescriptor> methods = streamMethods<StreamObject>();
  methods.push_back(InstanceMethod<&StreamObject::watchRecorded>("watchRecorded"));
  methods.push_back(InstanceMethod<&StreamObject::watchWritten>("watchWritten"));
  exports["Stream"] = DefineClass(env, "Stream", methods);
}

StreamObject::StreamObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<StreamObject>(info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon_ = &addon;
  const cu::Driver& d = addon.driver(env);
  device_.bind(env, info[0]);
  if (info.Length() > 3 && !info[3].IsUndefined()) {
    stream_ = reinterpret_cast<cu::Stream>(toU64(info[3]));
    cu::Context owner = nullptr;
    addon.check(env, cu::call(d.cuStreamGetCtx, stream_, &owner), "cuStreamGetCtx");
    if (owner != device_.ctx)
      throw Napi::RangeError::New(
          env, "Expected `handle` to be a stream of this device's primary context");
    lane_ = new LaneState();  // made on the main thread: no device thread
    lane_->stream = stream_;
    lane_->ctx = device_.ctx;
    return;
  }
  addon.check(env,
              cu::call(d.cuStreamCreateWithPriority, &stream_, info[1].As<Napi::Number>().Uint32Value(),
                       info[2].As<Napi::Number>().Int32Value()),
              "cuStreamCreateWithPriority");
  owned_ = true;
  lane_ = addon.submitter().open(stream_, device_.ctx);
}

StreamObject::~StreamObject() { release(); }

void StreamObject::release() {
  if (!lane_) return;
  if (owned_) {
    // Work still queued is submitted first; the driver releases the stream after it completes.
    addon_->submitter().release(lane_);
  } else {
    if (lane_->notifier) cu::call(cu::driver().cuStreamDestroy, lane_->notifier);
    if (lane_->notified) cu::call(cu::driver().cuEventDestroy, lane_->notified);
    delete lane_;
  }
  lane_ = nullptr;
}

void StreamObject::makeNotifier(Napi::Env env) {
  Addon& addon = Addon::of(env);
  const cu::Driver& d = cu::driver();
  addon.makeCurrentOnly(env, device_.ctx);
  cu::Event event = nullptr;
  cu::Stream notifier = nullptr;
  addon.check(env, cu::call(d.cuEventCreate, &event, cu::kEventDisableTiming), "cuEventCreate");
  cu::Result result = cu::call(d.cuStreamCreateWithPriority, &notifier, cu::kStreamNonBlocking, 0);
  if (result != cu::kSuccess) {
    cu::call(d.cuEventDestroy, event);
    addon.throwCuda(env, result, "cuStreamCreateWithPriority");
  }
  lane_->notified = event;
  lane_->notifier = notifier;
}

void StreamObject::give(Napi::Env env, Op op, const void* payload, size_t bytes, Completion::Record* record) {
  if (!lane_) {
    if (record) Addon::of(env).completion->cancel(record);
    throw Napi::TypeError::New(env, "the stream was destroyed");
  }
  if (lane_->thread) {
    uint8_t* at = lane_->thread->begin(op, lane_, bytes);
    std::memcpy(at, payload, bytes);
    lane_->thread->commit(&addon_->current);
    return;
  }
  Addon& addon = Addon::of(env);
  const char* call = "";
  cu::Result r = addon.submitNow(env, op, *lane_, payload, bytes, call);
  if (r == cu::kSuccess) return;
  if (record) addon.completion->cancel(record);
  addon.throwCuda(env, r, call);
}

Completion::Record* StreamObject::recordFor(Napi::Env env, const Napi::Value& id) {
  return Addon::of(env).completion->record(id.As<Napi::Number>().Uint32Value());
}

const cu::Driver& StreamObject::enter(Napi::Env env) {
  Addon::of(env).makeCurrent(env, device_.ctx);
  return cu::driver();
}

Napi::Value StreamObject::handle(const Napi::CallbackInfo& info) {
  return Napi::BigInt::New(info.Env(), static_cast<uint64_t>(reinterpret_cast<uintptr_t>(stream_)));
}

// destroy(): releases the stream (see release()); a foreign stream itself is left to its owner.
Napi::Value StreamObject::destroy(const Napi::CallbackInfo& info) {
  if (!owned_ && stream_) enter(info.Env());
  release();
  stream_ = nullptr;
  device_.device.Reset();
  return info.Env().Undefined();
}

Napi::Value StreamObject::query(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  cu::Result r = cu::call(enter(env).cuStreamQuery, stream_);
  if (r == cu::kErrorNotReady) return Napi::Boolean::New(env, false);
  Addon::of(env).check(env, r, "cuStreamQuery");
  return Napi::Boolean::New(env, true);
}

Napi::Value StreamObject::priority(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int priority = 0;
  Addon::of(env).check(env, cu::call(enter(env).cuStreamGetPriority, stream_, &priority),
                       "cuStreamGetPriority");
  return Napi::Number::New(env, priority);
}

Napi::Value StreamObject::flags(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  unsigned flags = 0;
  Addon::of(env).check(env, cu::call(enter(env).cuStreamGetFlags, stream_, &flags),
                       "cuStreamGetFlags");
  return Napi::Number::New(env, flags);
}

Napi::Value StreamObject::capturing(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), isCapturing(info.Env()));
}

bool StreamObject::isCapturing(Napi::Env env) {
  Addon& addon = Addon::of(env);
  addon.makeCurrentOnly(env, device_.ctx);
  cu::StreamCaptureStatus status = cu::kCaptureNone;
  addon.check(env, cu::call(cu::driver().cuStreamIsCapturing, stream_, &status), "cuStreamIsCapturing");
  return status != cu::kCaptureNone;
}

Napi::Value StreamObject::record(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto* event = EventObject::Unwrap(info[0].As<Napi::Object>());
  EventCommand c{event->event(), nullptr, 0};
  give(env, Op::Record, &c, sizeof c);
  event->recorded(lastGiven());
  return env.Undefined();
}

namespace {

// The addon's watcher, made on first use.
Spinner* spinnerOf(Addon& addon) {
  if (!addon.spinner) addon.spinner = std::make_unique<Spinner>();
  return addon.spinner.get();
}

}  // namespace

// watchRecorded(id, event, microseconds) -> whether it was recorded: records `event` here and has
// the watcher query it (Spinner::watchEvent, with this stream), in one call; id comes back through
// the completion queue with status 0 once the event has completed, or with Spinner::kGaveUp. False,
// with nothing recorded and id not taken, while the stream captures a graph (the record would join
// the graph). A throw (a failed record; no memory for the watch, after the record) leaves id not
// taken either.
Napi::Value StreamObject::watchRecorded(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  uint32_t id = info[0].As<Napi::Number>().Uint32Value();  // every argument read before the record
  auto* event = EventObject::Unwrap(info[1].As<Napi::Object>());
  int64_t limit = info[2].As<Napi::Number>().Int64Value();
  if (isCapturing(env)) return Napi::Boolean::New(env, false);
  Spinner* spinner = spinnerOf(addon);  // before the record is taken: making it may throw
  WatchCommand c{addon.completion->record(id), spinner, event->event(), 0, 0, limit};
  give(env, Op::WatchEvent, &c, sizeof c, c.record);
  event->recorded(lastGiven());
  return Napi::Boolean::New(env, true);
}

// watchWritten(id, address, value, microseconds) -> whether it was written: the device writes
// `value` to the word at `address` (pinned host memory) when the stream gets here, and the watcher
// reads the word until it has reached `value` (Spinner::watch, with a wake-up), in one call; id
// comes back as watchRecorded's does. The watcher makes no driver call for it. False, with nothing
// written and id not taken, while the stream captures a graph; a throw leaves id not taken either.
Napi::Value StreamObject::watchWritten(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  uint32_t id = info[0].As<Napi::Number>().Uint32Value();  // every argument read before the write
  uint64_t address = toU64(info[1]);
  uint32_t value = info[2].As<Napi::Number>().Uint32Value();
  int64_t limit = info[3].As<Napi::Number>().Int64Value();
  if (isCapturing(env)) return Napi::Boolean::New(env, false);
  Spinner* spinner = spinnerOf(addon);
  WatchCommand c{addon.completion->record(id), spinner, nullptr, address, value, limit};
  give(env, Op::WatchWord, &c, sizeof c, c.record);
  return Napi::Boolean::New(env, true);
}

Napi::Value StreamObject::waitEvent(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  EventCommand c = EventObject::Unwrap(info[0].As<Napi::Object>())->waitCommand();
  give(env, Op::Wait, &c, sizeof c);
  return env.Undefined();
}

// notify(id, flags = 0) -> whether it was enqueued: when the work enqueued so far has finished (or
// failed), id comes back through the completion queue with the stream's status, through
// cuStreamAddCallback, which reports a failed context. With kNotifyOffStream (a pipeline's lanes),
// the callback goes on the stream's notifier, behind an event recorded here, instead of the
// stream itself: a stream holding the callback waits at that point until the driver's callback
// thread has run it, before its next work starts, which slows a copy-bound pipeline; the hop
// through the event delays a lone notification, so other notifications stay on the stream. The notifier's order is the stream's:
// a notification never waits behind a later one. A stream under graph capture keeps the callback
// itself (the event and the wait would draw the notifier into the capture). With
// kNotifyRefuseCapture, such a stream gets nothing and the answer is false: the driver would
// refuse the callback and invalidate the capture.
Napi::Value StreamObject::notify(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint32_t flags = info.Length() > 1 ? info[1].As<Napi::Number>().Uint32Value() : 0;
  bool capturing = (flags & (kNotifyRefuseCapture | kNotifyOffStream)) && isCapturing(env);
  if ((flags & kNotifyRefuseCapture) && capturing) return Napi::Boolean::New(env, false);
  bool offStream = (flags & kNotifyOffStream) && !capturing;
  if (offStream && lane_ && !lane_->notifier) makeNotifier(env);
  NotifyCommand c{recordFor(env, info[0]), offStream};
  give(env, Op::Notify, &c, sizeof c, c.record);
  return Napi::Boolean::New(env, true);
}

// hostFunction(fn, userData): a native CUhostFn enqueued as it is; it runs on a driver thread.
Napi::Value StreamObject::hostFunction(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  HostFunctionCommand c{reinterpret_cast<cu::HostFn>(toU64(info[0])), reinterpret_cast<void*>(toU64(info[1]))};
  give(env, Op::HostFunction, &c, sizeof c);
  return env.Undefined();
}

// flushMark(id) -> whether id was taken: it comes back through the completion queue once
// everything given to the stream before it is in the driver's hands (status 0), or with the failure
// that stopped the stream's submission. False for a stream of no device thread (a foreign one, or
// one destroyed), whose commands are in the driver's hands once they are given.
Napi::Value StreamObject::flushMark(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!lane_ || !lane_->thread) return Napi::Boolean::New(env, false);
  RecordCommand c{recordFor(env, info[0])};
  give(env, Op::Mark, &c, sizeof c, c.record);
  return Napi::Boolean::New(env, true);
}

// failNext(code) -> whether it was taken: see LaneState::failNext (tests).
Napi::Value StreamObject::failNext(const Napi::CallbackInfo& info) {
  bool queued = lane_ && lane_->thread;
  if (queued) lane_->failNext.store(info[0].As<Napi::Number>().Int32Value());
  return Napi::Boolean::New(info.Env(), queued);
}

}  // namespace rxcuda
