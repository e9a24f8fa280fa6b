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

 private:
  Napi::Value query(const Napi::CallbackInfo& info);
  Napi::Value elapsed(const Napi::CallbackInfo& info);
  Napi::Value destroy(const Napi::CallbackInfo& info);

  cu::Event event_ = nullptr;
  DeviceRef device_;
};

}  // namespace rxcuda
