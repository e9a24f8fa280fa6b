// The memory commands of a CUDA stream: stream-ordered allocations and frees from the device's
// pool, copies (peer copies between devices too), fills, and the word a spinning wait watches.
#include "stream.hpp"

#include "device.hpp"

namespace rxcuda {

// writeValue(address, value): the device writes value to the word at address (pinned host memory)
// when the stream reaches this point; the low-latency wait watches for it. Nothing waits for it.
Napi::Value StreamObject::writeValue(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  WordCommand c{toU64(info[0]), info[1].As<Napi::Number>().Uint32Value()};
  give(env, Op::WriteValue, &c, sizeof c);
  return env.Undefined();
}

// alloc(bytes): on the main thread, which needs the address now, without waiting for the device
// thread: memory usable sooner than the stream's queued work asks is safe. Its free is queued.
Napi::Value StreamObject::alloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  cu::DevicePtr ptr = 0;
  size_t bytes = static_cast<size_t>(info[0].As<Napi::Number>().Int64Value());
  addon.makeCurrentOnly(env, device_.ctx);
  addon.check(env, cu::call(cu::driver().cuMemAllocAsync, &ptr, bytes, stream_), "cuMemAllocAsync");
  return Napi::BigInt::New(env, static_cast<uint64_t>(ptr));
}

Napi::Value StreamObject::free(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CopyCommand c{toU64(info[0]), 0, 0, nullptr, nullptr};
  give(env, Op::Free, &c, sizeof c);
  return env.Undefined();
}

// copy(dst, src, bytes): addresses are unified, so one call serves every direction.
Napi::Value StreamObject::copy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CopyCommand c{toU64(info[0]), toU64(info[1]), static_cast<size_t>(info[2].As<Napi::Number>().Int64Value()),
                nullptr, nullptr};
  give(env, Op::Copy, &c, sizeof c);
  return env.Undefined();
}

// copyPeer(dst, dstDevice, src, srcDevice, bytes): between memory of two devices' contexts. The
// driver copies directly where peer access is enabled (Device.enablePeerAccess), else it stages
// the copy through host memory.
Napi::Value StreamObject::copyPeer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CopyCommand c{toU64(info[0]), toU64(info[2]), static_cast<size_t>(info[4].As<Napi::Number>().Int64Value()),
                DeviceObject::from(info[1])->context(), DeviceObject::from(info[3])->context()};
  give(env, Op::CopyPeer, &c, sizeof c);
  return env.Undefined();
}

// fill(ptr, elementSize, count, low, high): writes a 1, 2, 4 or 8 byte pattern count times.
Napi::Value StreamObject::fill(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  FillCommand c{toU64(info[0]), static_cast<size_t>(info[2].As<Napi::Number>().Int64Value()),
                info[1].As<Napi::Number>().Uint32Value(), info[3].As<Napi::Number>().Uint32Value(),
                info[4].As<Napi::Number>().Uint32Value()};
  give(env, Op::Fill, &c, sizeof c);
  return env.Undefined();
}

}  // namespace rxcuda
