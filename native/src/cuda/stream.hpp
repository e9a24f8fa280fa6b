// A CUDA stream: owned (created here) or foreign (wrapped from a handle made by other CUDA code).
// Every method enqueues and returns; none waits for the device. An owned stream's commands go to
// its device thread (runtime/device-thread.hpp); a foreign stream's are made on the main thread,
// after the device threads' queued work, since other code may capture it at any time.
#pragma once
#include <napi.h>

#include "../runtime/addon.hpp"
#include "device.hpp"
#include "../runtime/stream-commands.hpp"

namespace rxcuda {

class StreamObject final : public Napi::ObjectWrap<StreamObject>, public StreamCommands {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  // new Stream(device, flags, priority) creates; new Stream(device, 0, 0, handle) wraps.
  explicit StreamObject(const Napi::CallbackInfo& info);
  ~StreamObject() override;

  cu::Stream stream() const { return stream_; }
  cu::Context context() const { return device_.ctx; }
  // The stream as its commands name it (null once destroyed).
  LaneState* lane() const { return lane_; }
  // The place of the command given last, on the stream's device thread (none without one).
  After lastGiven() const { return lane_ && lane_->thread ? lane_->thread->last() : After{}; }

  // StreamCommands (runtime/stream-commands.hpp)
  RXCUDA_STREAM_COMMANDS(RXCUDA_STREAM_COMMAND_OVERRIDE)

 private:
  // The CUDA stream's own: a completion watched by the spinner (runtime/spinner.hpp).
  Napi::Value watchRecorded(const Napi::CallbackInfo& info);
  Napi::Value watchWritten(const Napi::CallbackInfo& info);

  // Makes the stream's context current (after the device threads' queued work) and returns the
  // driver table.
  const cu::Driver& enter(Napi::Env env);
  // Whether other code captures the stream (no wait for the device threads: a capture begins on
  // the main thread).
  bool isCapturing(Napi::Env env);
  // Makes the notifier stream and its event on first use.
  void makeNotifier(Napi::Env env);
  // Gives a command to the stream's device thread, or makes its driver calls now for a foreign
  // stream (a failure then throws, and `record`, if given, is cancelled).
  void give(Napi::Env env, Op op, const void* payload, size_t bytes, Completion::Record* record = nullptr);
  // Releases the stream: its device thread destroys it behind its work, or, for a foreign one,
  // what this object made is destroyed now.
  void release();
  // The completion record for `id`, on the environment's completion queue.
  Completion::Record* recordFor(Napi::Env env, const Napi::Value& id);

  cu::Stream stream_ = nullptr;
  bool owned_ = false;
  DeviceRef device_;
  Addon* addon_ = nullptr;
  // The stream as commands name it; its notifier (see notify()) lives there too. An owned
  // stream's belongs to its device thread once released.
  LaneState* lane_ = nullptr;
};

}  // namespace rxcuda
