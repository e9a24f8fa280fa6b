// A block of doubles that a library object (CudaBlas, CudaFft, HostBlas, HostFft) reads at each
// call, bound once to a plain Node-API function, so that a repeated call has nothing to unpack.
#pragma once
#include <napi.h>

namespace rxcuda {

class BoundBlock {
 public:
  // Keeps `block` referenced while the owner lives; returns a function named `name` that calls
  // `self->runBound(env)` and returns its status.
  template <class Object>
  Napi::Value bind(Napi::Env env, Napi::Float64Array block, Object* self, const char* name) {
    ref_ = Napi::Persistent(block);
    data_ = block.Data();
    napi_value fn = nullptr;
    NAPI_THROW_IF_FAILED(env, napi_create_function(env, name, NAPI_AUTO_LENGTH, &call<Object>, self, &fn), Napi::Value());
    return Napi::Value(env, fn);
  }

  const double* data() const { return data_; }

 private:
  template <class Object>
  static napi_value call(napi_env env, napi_callback_info info) {
    void* self = nullptr;
    napi_get_cb_info(env, info, nullptr, nullptr, nullptr, &self);
    napi_value out = nullptr;
    // C++ exceptions must not leave a plain Node-API callback: errors become pending JS exceptions.
    try {
      napi_create_int32(env, static_cast<Object*>(self)->runBound(Napi::Env(env)), &out);
    } catch (const Napi::Error& error) {
      error.ThrowAsJavaScriptException();
    }
    return out;
  }

  Napi::Reference<Napi::Float64Array> ref_;
  const double* data_ = nullptr;
};

}  // namespace rxcuda
