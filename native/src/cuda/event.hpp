// A CUDA event, created on a device's primary context.
#pragma once
#include <napi.h>

#include "../runtime/addon.hpp"
#include "device.hpp"

namespace rxcuda {

class EventObject : public Napi::ObjectWrap<EventObject> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit EventObject(const Napi::CallbackInfo& info);  // new Event(device, flags)
  ~EventObject() override;
  cu::Event event() const { return event_; }
  cu::Context context() const { return device_.ctx; }
  // Notes where its latest record was given (a device thread's place, or none for a record made
  // on the main thread), and the wait for it: a wait given to another thread waits until that
  // thread has submitted the record.
  void recorded(After at) { recorded_ = at; }
  EventCommand waitCommand() const { return {event_, recorded_}; }

 private:
  Napi::Value query(const Napi::CallbackInfo& info);
  Napi::Value elapsed(const Napi::CallbackInfo& info);
  Napi::Value destroy(const Napi::CallbackInfo& info);

  cu::Event event_ = nullptr;
  DeviceRef device_;
  After recorded_;
  Addon* addon_ = nullptr;  // its destruction waits for the device threads (they may record it)
};

}  // namespace rxcuda
