// A CUDA event, created on a device's primary context.
#pragma once
#include <napi.h>

#include "../addon.hpp"
#include "device.hpp"

namespace rxcuda {

class EventObject : public Napi::ObjectWrap<EventObject> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit EventObject(const Napi::CallbackInfo& info);  // new Event(device, flags)
  ~EventObject() override;
  cu::Event event() const { return event_; }
  cu::Context context() const { return device_.ctx; }
  // Where its latest record was given: a device thread and the count of its commands that
  // includes it (a wait given to another thread waits until that thread has submitted it), or
  // null for a record made on the main thread.
  void recordedOn(DeviceThread* thread) {
    recordedOn_ = thread;
    recordedAt_ = thread ? thread->given() : 0;
  }
  EventCommand waitFrom(DeviceThread* waiter) const {
    return {event_, recordedOn_ != waiter ? recordedOn_ : nullptr, recordedAt_};
  }

 private:
  Napi::Value query(const Napi::CallbackInfo& info);
  Napi::Value elapsed(const Napi::CallbackInfo& info);
  Napi::Value destroy(const Napi::CallbackInfo& info);

  cu::Event event_ = nullptr;
  DeviceRef device_;
  DeviceThread* recordedOn_ = nullptr;
  uint64_t recordedAt_ = 0;
  Addon* addon_ = nullptr;  // its destruction waits for the device threads (they may record it)
};

}  // namespace rxcuda
