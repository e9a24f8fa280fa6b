// A CUDA stream: owned (created here) or foreign (wrapped from a handle made by other CUDA code).
// Every method enqueues and returns; none waits for the device.
#pragma once
#include <napi.h>

#include "../addon.hpp"
#include "device.hpp"

namespace rxcuda {

// notify()'s flags (src/core/native/types.ts has the same values).
constexpr uint32_t kNotifyRefuseCapture = 2;
constexpr uint32_t kNotifyOffStream = 4;

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
  Napi::Value watchRecorded(const Napi::CallbackInfo& info);
  Napi::Value watchWritten(const Napi::CallbackInfo& info);
  Napi::Value waitEvent(const Napi::CallbackInfo& info);
  Napi::Value notify(const Napi::CallbackInfo& info);
  Napi::Value hostFunction(const Napi::CallbackInfo& info);
  Napi::Value writeValue(const Napi::CallbackInfo& info);
  Napi::Value alloc(const Napi::CallbackInfo& info);
  Napi::Value free(const Napi::CallbackInfo& info);
  Napi::Value copy(const Napi::CallbackInfo& info);
  Napi::Value copyPeer(const Napi::CallbackInfo& info);
  Napi::Value fill(const Napi::CallbackInfo& info);

  // Makes the stream's context current and returns the driver table.
  const cu::Driver& enter(Napi::Env env);
  bool isCapturing(Napi::Env env);
  // Makes the notifier stream and its event on first use.
  void makeNotifier(Napi::Env env, const cu::Driver& d);
  // Destroys them (the driver lets their pending work finish first).
  void destroyNotifier();

  cu::Stream stream_ = nullptr;
  bool owned_ = false;
  DeviceRef device_;
  // Notifications with kNotifyOffStream run here, behind an event of the stream, so that the
  // stream itself does not wait for their host callback (see notify()).
  cu::Stream notifier_ = nullptr;
  cu::Event notified_ = nullptr;
};

}  // namespace rxcuda
