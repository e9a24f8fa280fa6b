// A CUDA device and its primary context, retained for as long as this object lives.
#pragma once
#include <napi.h>

#include "../runtime/addon.hpp"

namespace rxcuda {

// What an object made on a device keeps: the device's context, and the device object itself, so
// that the primary context stays retained for as long as the object lives.
struct DeviceRef {
  cu::Context ctx = nullptr;
  Napi::ObjectReference device;

  // Binds to the Device object `value` and makes its context current.
  void bind(Napi::Env env, const Napi::Value& value);
};

class DeviceObject : public Napi::ObjectWrap<DeviceObject> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit DeviceObject(const Napi::CallbackInfo& info);  // new Device(ordinal)
  ~DeviceObject() override;

  cu::Context context() const { return ctx_; }
  cu::Device device() const { return dev_; }
  static DeviceObject* from(const Napi::Value& v) { return Unwrap(v.As<Napi::Object>()); }

 private:
  Napi::Value properties(const Napi::CallbackInfo& info);
  Napi::Value memoryInfo(const Napi::CallbackInfo& info);
  Napi::Value enablePeerAccess(const Napi::CallbackInfo& info);

  cu::Device dev_ = 0;
  cu::Context ctx_ = nullptr;
  Addon* addon_ = nullptr;
};

}  // namespace rxcuda
