// What a backend's stream offers JavaScript: the one list of stream commands that the CUDA stream
// (cuda/stream.hpp) and the host stream (host/stream.hpp) both implement, and the JS method table
// built from it, so that the two cannot drift apart.
#pragma once
#include <napi.h>

#include <type_traits>
#include <vector>

namespace rxcuda {

class StreamCommands {
 public:
  virtual ~StreamCommands() = default;

  virtual Napi::Value handle(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value destroy(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value query(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value priority(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value flags(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value capturing(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value record(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value waitEvent(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value notify(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value hostFunction(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value writeValue(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value alloc(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value free(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value copy(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value copyPeer(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value fill(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value flushMark(const Napi::CallbackInfo& info) = 0;
  virtual Napi::Value failNext(const Napi::CallbackInfo& info) = 0;
};

// The JS methods of stream class T, one per command above. A JS call reaches T's method through
// its vtable: one indirect call, beside the unwrapping that every Node-API method call does.
template <class T>
std::vector<Napi::ClassPropertyDescriptor<T>> streamMethods() {
  static_assert(std::is_base_of_v<StreamCommands, T>);
  using W = Napi::InstanceWrap<T>;
  return {
      W::template InstanceMethod<&T::handle>("handle"),
      W::template InstanceMethod<&T::destroy>("destroy"),
      W::template InstanceMethod<&T::query>("query"),
      W::template InstanceMethod<&T::priority>("priority"),
      W::template InstanceMethod<&T::flags>("flags"),
      W::template InstanceMethod<&T::capturing>("capturing"),
      W::template InstanceMethod<&T::record>("record"),
      W::template InstanceMethod<&T::waitEvent>("waitEvent"),
      W::template InstanceMethod<&T::notify>("notify"),
      W::template InstanceMethod<&T::hostFunction>("hostFunction"),
      W::template InstanceMethod<&T::writeValue>("writeValue"),
      W::template InstanceMethod<&T::alloc>("alloc"),
      W::template InstanceMethod<&T::free>("free"),
      W::template InstanceMethod<&T::copy>("copy"),
      W::template InstanceMethod<&T::copyPeer>("copyPeer"),
      W::template InstanceMethod<&T::fill>("fill"),
      W::template InstanceMethod<&T::flushMark>("flushMark"),
      W::template InstanceMethod<&T::failNext>("failNext"),
  };
}

}  // namespace rxcuda
