// The memory commands of a CUDA stream: stream-ordered allocations and frees from the device's
// pool, copies (peer copies between devices too), fills, and the word a spinning wait watches.
#include "stream.hpp"

#include "device.hpp"

namespace rxcuda {

// writeValue(address, value): the device writes value to the word at address (pinned host memory)
// when the stream reaches this point; the low-latency wait watches for it. Nothing waits for it.
Napi::Value StreamObject::writeValue(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon::of(env).check(env,
                       cu::call(enter(env).cuStreamWriteValue32, stream_, toU64(info[0]),
                                info[1].As<Napi::Number>().Uint32Value(), 0u),
                       "cuStreamWriteValue32");
  return env.Undefined();
}

Napi::Value StreamObject::alloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  cu::DevicePtr ptr = 0;
  size_t bytes = static_cast<size_t>(info[0].As<Napi::Number>().Int64Value());
  Addon::of(env).check(env, cu::call(enter(env).cuMemAllocAsync, &ptr, bytes, stream_),
                       "cuMemAllocAsync");
  return Napi::BigInt::New(env, static_cast<uint64_t>(ptr));
}

Napi::Value StreamObject::free(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon::of(env).check(env, cu::call(enter(env).cuMemFreeAsync, toU64(info[0]), stream_),
                       "cuMemFreeAsync");
  return env.Undefined();
}

// copy(dst, src, bytes): addresses are unified, so one call serves every direction.
Napi::Value StreamObject::copy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t bytes = static_cast<size_t>(info[2].As<Napi::Number>().Int64Value());
  Addon::of(env).check(
      env, cu::call(enter(env).cuMemcpyAsync, toU64(info[0]), toU64(info[1]), bytes, stream_),
      "cuMemcpyAsync");
  return env.Undefined();
}

// copyPeer(dst, dstDevice, src, srcDevice, bytes): between memory of two devices' contexts. The
// driver copies directly where peer access is enabled (Device.enablePeerAccess), else it stages
// the copy through host memory.
Napi::Value StreamObject::copyPeer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  cu::Context dstCtx = DeviceObject::from(info[1])->context();
  cu::Context srcCtx = DeviceObject::from(info[3])->context();
  size_t bytes = static_cast<size_t>(info[4].As<Napi::Number>().Int64Value());
  Addon::of(env).check(env,
                       cu::call(enter(env).cuMemcpyPeerAsync, toU64(info[0]), dstCtx, toU64(info[2]),
                                srcCtx, bytes, stream_),
                       "cuMemcpyPeerAsync");
  return env.Undefined();
}

// fill(ptr, elementSize, count, low, high): writes a 1, 2, 4 or 8 byte pattern count times.
Napi::Value StreamObject::fill(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = enter(env);
  cu::DevicePtr ptr = toU64(info[0]);
  unsigned size = info[1].As<Napi::Number>().Uint32Value();
  size_t count = static_cast<size_t>(info[2].As<Napi::Number>().Int64Value());
  unsigned low = info[3].As<Napi::Number>().Uint32Value();
  unsigned high = info[4].As<Napi::Number>().Uint32Value();
  switch (size) {
    case 1:
      addon.check(env, cu::call(d.cuMemsetD8Async, ptr, static_cast<unsigned char>(low), count, stream_),
                  "cuMemsetD8Async");
      break;
    case 2:
      addon.check(env, cu::call(d.cuMemsetD16Async, ptr, static_cast<unsigned short>(low), count, stream_),
                  "cuMemsetD16Async");
      break;
    case 4:
      addon.check(env, cu::call(d.cuMemsetD32Async, ptr, low, count, stream_), "cuMemsetD32Async");
      break;
    default:
      // An 8-byte pattern as two strided 4-byte fills: one column of low words, one of high.
      addon.check(env, cu::call(d.cuMemsetD2D32Async, ptr, size_t{8}, low, size_t{1}, count, stream_),
                  "cuMemsetD2D32Async");
      addon.check(env,
                  cu::call(d.cuMemsetD2D32Async, ptr + 4, size_t{8}, high, size_t{1}, count, stream_),
                  "cuMemsetD2D32Async");
  }
  return env.Undefined();
}

}  // namespace rxcuda
