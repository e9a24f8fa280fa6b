#include "stream.hpp"

#include "device.hpp"
#include "event.hpp"

namespace rxcuda {

void StreamObject::define(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(
      env, "Stream",
      {
          InstanceMethod<&StreamObject::handle>("handle"),
          InstanceMethod<&StreamObject::destroy>("destroy"),
          InstanceMethod<&StreamObject::query>("query"),
          InstanceMethod<&StreamObject::priority>("priority"),
          InstanceMethod<&StreamObject::flags>("flags"),
          InstanceMethod<&StreamObject::capturing>("capturing"),
          InstanceMethod<&StreamObject::record>("record"),
          InstanceMethod<&StreamObject::watchRecorded>("watchRecorded"),
          InstanceMethod<&StreamObject::watchWritten>("watchWritten"),
          InstanceMethod<&StreamObject::waitEvent>("waitEvent"),
          InstanceMethod<&StreamObject::notify>("notify"),
          InstanceMethod<&StreamObject::hostFunction>("hostFunction"),
          InstanceMethod<&StreamObject::writeValue>("writeValue"),
          InstanceMethod<&StreamObject::alloc>("alloc"),
          InstanceMethod<&StreamObject::free>("free"),
          InstanceMethod<&StreamObject::copy>("copy"),
          InstanceMethod<&StreamObject::copyPeer>("copyPeer"),
          InstanceMethod<&StreamObject::fill>("fill"),
      });
  exports["Stream"] = cls;
}

StreamObject::StreamObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<StreamObject>(info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = addon.driver(env);
  device_.bind(env, info[0]);
  if (info.Length() > 3 && !info[3].IsUndefined()) {
    stream_ = reinterpret_cast<cu::Stream>(toU64(info[3]));
    cu::Context owner = nullptr;
    addon.check(env, cu::call(d.cuStreamGetCtx, stream_, &owner), "cuStreamGetCtx");
    if (owner != device_.ctx)
      throw Napi::RangeError::New(
          env, "Expected `handle` to be a stream of this device's primary context");
    return;
  }
  addon.check(env,
              cu::call(d.cuStreamCreateWithPriority, &stream_, info[1].As<Napi::Number>().Uint32Value(),
                       info[2].As<Napi::Number>().Int32Value()),
              "cuStreamCreateWithPriority");
  owned_ = true;
}

StreamObject::~StreamObject() {
  // Work still queued completes first: the driver releases the stream after it.
  if (owned_ && stream_) cu::call(cu::driver().cuStreamDestroy, stream_);
  destroyNotifier();
}

void StreamObject::makeNotifier(Napi::Env env, const cu::Driver& d) {
  Addon& addon = Addon::of(env);
  addon.check(env, cu::call(d.cuEventCreate, &notified_, cu::kEventDisableTiming), "cuEventCreate");
  cu::Result result = cu::call(d.cuStreamCreateWithPriority, &notifier_, cu::kStreamNonBlocking, 0);
  if (result != cu::kSuccess) {
    cu::call(d.cuEventDestroy, notified_);
    notified_ = nullptr;
    notifier_ = nullptr;
    addon.throwCuda(env, result, "cuStreamCreateWithPriority");
  }
}

void StreamObject::destroyNotifier() {
  if (notifier_) cu::call(cu::driver().cuStreamDestroy, notifier_);
  if (notified_) cu::call(cu::driver().cuEventDestroy, notified_);
  notifier_ = nullptr;
  notified_ = nullptr;
}

const cu::Driver& StreamObject::enter(Napi::Env env) {
  Addon::of(env).makeCurrent(env, device_.ctx);
  return cu::driver();
}

Napi::Value StreamObject::handle(const Napi::CallbackInfo& info) {
  return Napi::BigInt::New(info.Env(), static_cast<uint64_t>(reinterpret_cast<uintptr_t>(stream_)));
}

// destroy(): releases what this object made; a foreign stream itself is left to its owner.
Napi::Value StreamObject::destroy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (stream_) enter(env);
  destroyNotifier();
  if (owned_ && stream_)
    Addon::of(env).check(env, cu::call(cu::driver().cuStreamDestroy, stream_), "cuStreamDestroy");
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
  cu::StreamCaptureStatus status = cu::kCaptureNone;
  Addon::of(env).check(env, cu::call(enter(env).cuStreamIsCapturing, stream_, &status),
                       "cuStreamIsCapturing");
  return status != cu::kCaptureNone;
}

Napi::Value StreamObject::record(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto* event = EventObject::Unwrap(info[0].As<Napi::Object>());
  Addon::of(env).check(env, cu::call(enter(env).cuEventRecord, event->event(), stream_),
                       "cuEventRecord");
  return env.Undefined();
}

namespace {

// Has `add` give the addon's watcher (made on first use) the watch for completion `id`; a throw
// leaves id not taken.
template <typename Add>
void watchFor(Addon& addon, uint32_t id, Add add) {
  if (!addon.spinner) addon.spinner = std::make_unique<Spinner>();
  Completion::Record* record = addon.completion->record(id);
  try {
    add(*addon.spinner, record);
  } catch (...) {
    addon.completion->cancel(record);  // the caller sees a throw: id not taken
    throw;
  }
}

}  // namespace

// watchRecorded(id, event, microseconds) -> whether it was recorded: records `event` here and has
// the watcher query it (Spinner::watchEvent, with this stream), in one call; id comes back through
// the completion road with status 0 once the event has completed, or with Spinner::kGaveUp. False,
// with nothing recorded and id not taken, while the stream captures a graph (the record would join
// the graph). A throw (a failed record; no memory for the watch, after the record) leaves id not
// taken either.
Napi::Value StreamObject::watchRecorded(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  uint32_t id = info[0].As<Napi::Number>().Uint32Value();  // every argument read before the record
  auto* event = EventObject::Unwrap(info[1].As<Napi::Object>());
  auto limit = std::chrono::microseconds(info[2].As<Napi::Number>().Int64Value());
  if (isCapturing(env)) return Napi::Boolean::New(env, false);
  addon.check(env, cu::call(enter(env).cuEventRecord, event->event(), stream_), "cuEventRecord");
  watchFor(addon, id, [&](Spinner& spinner, Completion::Record* record) {
    spinner.watchEvent(event->event(), event->context(), record, limit, stream_);
  });
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
  auto limit = std::chrono::microseconds(info[3].As<Napi::Number>().Int64Value());
  if (isCapturing(env)) return Napi::Boolean::New(env, false);
  addon.check(env, cu::call(enter(env).cuStreamWriteValue32, stream_, address, value, 0u), "cuStreamWriteValue32");
  watchFor(addon, id, [&](Spinner& spinner, Completion::Record* record) {
    spinner.watch(reinterpret_cast<const volatile uint32_t*>(address), value, record, limit, false);
  });
  return Napi::Boolean::New(env, true);
}

Napi::Value StreamObject::waitEvent(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto* event = EventObject::Unwrap(info[0].As<Napi::Object>());
  Addon::of(env).check(env, cu::call(enter(env).cuStreamWaitEvent, stream_, event->event(), 0u),
                       "cuStreamWaitEvent");
  return env.Undefined();
}

// notify(id, flags = 0) -> whether it was enqueued: when the work enqueued so far has finished (or
// failed), id comes back through the completion road with the stream's status, through
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
  Addon& addon = Addon::of(env);
  const cu::Driver& d = enter(env);
  uint32_t flags = info.Length() > 1 ? info[1].As<Napi::Number>().Uint32Value() : 0;
  bool capturing = (flags & (kNotifyRefuseCapture | kNotifyOffStream)) && isCapturing(env);
  if ((flags & kNotifyRefuseCapture) && capturing) return Napi::Boolean::New(env, false);
  cu::Stream target = stream_;
  if ((flags & kNotifyOffStream) && !capturing) {
    if (!notifier_) makeNotifier(env, d);
    addon.check(env, cu::call(d.cuEventRecord, notified_, stream_), "cuEventRecord");
    addon.check(env, cu::call(d.cuStreamWaitEvent, notifier_, notified_, 0u), "cuStreamWaitEvent");
    target = notifier_;
  }
  Completion::Record* r = addon.completion->record(info[0].As<Napi::Number>().Uint32Value());
  cu::Result result = cu::call(d.cuStreamAddCallback, target, &Completion::streamCallback, r, 0u);
  if (result != cu::kSuccess) {
    addon.completion->cancel(r);
    addon.throwCuda(env, result, "cuStreamAddCallback");
  }
  return Napi::Boolean::New(env, true);
}

// hostFunction(fn, userData): a native CUhostFn enqueued as it is; it runs on a driver thread.
Napi::Value StreamObject::hostFunction(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto fn = reinterpret_cast<cu::HostFn>(toU64(info[0]));
  auto data = reinterpret_cast<void*>(toU64(info[1]));
  Addon::of(env).check(env, cu::call(enter(env).cuLaunchHostFunc, stream_, fn, data),
                       "cuLaunchHostFunc");
  return env.Undefined();
}

}  // namespace rxcuda
