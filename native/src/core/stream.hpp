// A CUDA stream: owned (created here) or foreign (wrapped from a handle made by other CUDA code).
// Every method enqueues and returns; none waits for the device.
#pragma once
#include <napi.h>

#include "../addon.hpp"
#include "device.hpp"

namespace rxcuda {

// notify()'s flags (src/core/native.ts has the same values).
constexpr uint32_t kNotifyByHostFunction = 1;
constexpr uint32_t kNotifyRefuseCapture = 2;

class StreamObject : public Napi::ObjectWrap<StreamObject> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  // new Stream(device, flags, priority) creates; new Stream(device, 0, 0, handle) wraps.
  explicit StreamObject(const Napi::CallbackInfo& info);
  ~StreamObject() override;

  cu::Stream stream() const { return stream_; }
  cu::Context context() const { return device_.ctx; }

 private:
  Napi::Value handle(const Napi::CallbackInfo& info);
  Napi::Value destroy(const Napi::CallbackInfo& info);
  Napi::Value query(const Napi::CallbackInfo& info);
  Napi::Value priority(const Napi::CallbackInfo& info);
  Napi::Value flags(const Napi::CallbackInfo& info);
  Napi::Value capturing(const Napi::CallbackInfo& info);
  Napi::Value record(const Napi::CallbackInfo& info);
  Napi::Value waitEvent(const Napi::CallbackInfo& info);
  Napi::Value notify(const Napi::CallbackInfo& info);
  Napi::Value hold(const Napi::CallbackInfo& info);
  Napi::Value notifyWhen(const Napi::CallbackInfo& info);
  Napi::Value hostFunction(const Napi::CallbackInfo& info);
  Napi::Value waitValue(const Napi::CallbackInfo& info);
  Napi::Value writeValue(const Napi::CallbackInfo& info);
  Napi::Value alloc(const Napi::CallbackInfo& info);
  Napi::Value free(const Napi::CallbackInfo& info);
  Napi::Value copy(const Napi::CallbackInfo& info);
  Napi::Value fill(const Napi::CallbackInfo& info);

  // Makes the stream's context current and returns the driver table.
  const cu::Driver& enter(Napi::Env env);
  bool isCapturing(Napi::Env env);
  // Enqueues the notification for id on `stream` (this one or the notifier).
  void notifyOn(Napi::Env env, cu::Stream stream, uint32_t id, bool viaHostFunction);
  // The notifier stream, made on first use (with reached_).
  cu::Stream notifier(Napi::Env env);
  // Releases the notifier stream and its event, once.
  void closeNotifier();
  using ValueOp = decltype(cu::Driver::cuStreamWaitValue32);
  void valueOp(Napi::Env env, cu::Stream stream, const Napi::Value& address,
               const Napi::Value& value, ValueOp cu::Driver::*op, unsigned flags, const char* call);
  void waitWord(Napi::Env env, cu::Stream stream, const Napi::Value& address,
                const Napi::Value& value);

  cu::Stream stream_ = nullptr;
  bool owned_ = false;
  // Held steps' notifications travel on a second stream, made on first use, that waits for
  // `reached_` recorded here (see hold()), as do the fallbacks of spinning waits (notifyWhen()).
  cu::Stream notifier_ = nullptr;
  cu::Event reached_ = nullptr;
  DeviceRef device_;
};

}  // namespace rxcuda
