// What a backend's stream offers JavaScript: the one list of stream commands that the CUDA stream
// (cuda/stream.hpp) and the host stream (host/stream.hpp) both implement, and the JS method table
// built from it, so that the two cannot drift apart.
#pragma once
#include <napi.h>

#include <type_traits>
#include <vector>

namespace rxcuda {

// The list of commands, once (an X-macro: X(name) for each); each is a JS method of the stream
// class, `Napi::Value name(const Napi::CallbackInfo&)`.
#define RXCUDA_STREAM_COMMANDS(X) \
  X(handle) \
  X(destroy) \
  X(query) \
  X(priority) \
  X(flags) \
  X(capturing) \
  X(record) \
  X(waitEvent) \
  X(notify) \
  X(hostFunction) \
  X(writeValue) \
  X(alloc) \
  X(free) \
  X(copy) \
  X(copyPeer) \
  X(fill) \
  X(flushMark) \
  X(failNext)

#define RXCUDA_STREAM_COMMAND_PURE(name) virtual Napi::Value name(const Napi::CallbackInfo& info) = 0;
// What a backend's stream class writes among its public members to implement the list.
#define RXCUDA_STREAM_COMMAND_OVERRIDE(name) Napi::Value name(const Napi::CallbackInfo& info) override;
#define RXCUDA_STREAM_COMMAND_METHOD(name) W::template InstanceMethod<&T::name>(#name),

class StreamCommands {
 public:
  virtual ~StreamCommands() = default;
  RXCUDA_STREAM_COMMANDS(RXCUDA_STREAM_COMMAND_PURE)
};

// The JS methods of stream class T, one per command above. A JS call reaches T's method through
// its vtable: one indirect call, beside the unwrapping that every Node-API method call does.
template <class T>
std::vector<Napi::ClassPropertyDescriptor<T>> streamMethods() {
  static_assert(std::is_base_of_v<StreamCommands, T>);
  using W = Napi::InstanceWrap<T>;
  return {RXCUDA_STREAM_COMMANDS(RXCUDA_STREAM_COMMAND_METHOD)};
}

}  // namespace rxcuda
