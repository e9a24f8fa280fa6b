#include "event.hpp"

#include "device.hpp"

namespace rxcuda {

void EventObject::define(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(env, "Event",
                                   {
                                       InstanceMethod<&EventObject::query>("query"),
                                       InstanceMethod<&EventObject::elapsed>("elapsed"),
                                       InstanceMethod<&EventObject::destroy>("destroy"),
                                   });
  exports["Event"] = cls;
}

EventObject::EventObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<EventObject>(info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = addon.driver(env);
  device_.bind(env, info[0]);
  addon_ = &addon;
  addon.check(env, cu::call(d.cuEventCreate, &event_, info[1].As<Napi::Number>().Uint32Value()),
              "cuEventCreate");
}

EventObject::~EventObject() {
  if (!event_) return;
  addon_->drain();
  cu::call(cu::driver().cuEventDestroy, event_);
}

Napi::Value EventObject::query(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, device_.ctx);
  cu::Result r = cu::call(cu::driver().cuEventQuery, event_);
  if (r == cu::kErrorNotReady) return Napi::Boolean::New(env, false);
  addon.check(env, r, "cuEventQuery");
  return Napi::Boolean::New(env, true);
}

// elapsed(end): milliseconds from this event to end; both must have completed.
Napi::Value EventObject::elapsed(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, device_.ctx);
  auto* end = Unwrap(info[0].As<Napi::Object>());
  float ms = 0;
  addon.check(env, cu::call(cu::driver().cuEventElapsedTime, &ms, event_, end->event_),
              "cuEventElapsedTime");
  return Napi::Number::New(env, ms);
}

Napi::Value EventObject::destroy(const Napi::CallbackInfo& info) {
  if (event_) {
    Napi::Env env = info.Env();
    Addon::of(env).makeCurrent(env, device_.ctx);
    cu::call(cu::driver().cuEventDestroy, event_);
    event_ = nullptr;
  }
  device_.device.Reset();
  return info.Env().Undefined();
}

}  // namespace rxcuda
