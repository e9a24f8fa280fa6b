// Native helpers for the tests: what another addon would hand rxcuda (compiled CUhostFns), graph
// capture begun and ended from outside rxcuda, the memory in use (malloc's, and a CUDA device's
// memory pool's), and a leak made on purpose (for the leak checker).
#include <dlfcn.h>
#include <malloc.h>
#include <napi.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "../../native/src/driver/baseline-driver.hpp"

namespace {

using rxcuda::cu::call;
const rxcuda::cu::BaselineDriver& driver() { return rxcuda::cu::baselineDriver(); }

// A host function as another addon would compile it: adds 1 to the 32-bit word at userData.
void countCalls(void* userData) {
  std::atomic_ref<uint32_t>(*static_cast<uint32_t*>(userData)).fetch_add(1);
}

// A host function that holds its stream's thread until the 32-bit word at userData is non-zero:
// work behind it stays pending, as behind a long kernel.
void waitForWord(void* userData) {
  std::atomic_ref<uint32_t> word(*static_cast<uint32_t*>(userData));
  while (word.load() == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
}

rxcuda::cu::Stream streamOf(const Napi::Value& v) {
  bool lossless = false;
  return reinterpret_cast<rxcuda::cu::Stream>(v.As<Napi::BigInt>().Uint64Value(&lossless));
}

Napi::Value beginCapture(const Napi::CallbackInfo& info) {
  auto r = call(driver().cuStreamBeginCapture, streamOf(info[0]), rxcuda::cu::kCaptureModeRelaxed);
  return Napi::String::New(info.Env(), rxcuda::cu::errorName(r));
}

// endCapture(stream) -> the CUresult name of cuStreamEndCapture (CUDA_SUCCESS when the capture
// stayed valid); the graph is destroyed at once.
Napi::Value endCapture(const Napi::CallbackInfo& info) {
  rxcuda::cu::Graph graph = nullptr;
  auto r = call(driver().cuStreamEndCapture, streamOf(info[0]), &graph);
  if (graph) call(driver().cuGraphDestroy, graph);
  return Napi::String::New(info.Env(), rxcuda::cu::errorName(r));
}

// mallocInUse() -> bytes malloc has handed out and not taken back (the host device's memory).
Napi::Value mallocInUse(const Napi::CallbackInfo& info) {
  struct mallinfo2 m = mallinfo2();
  return Napi::Number::New(info.Env(), static_cast<double>(m.uordblks + m.hblkhd));
}

// devicePool(ordinal) -> { used, reserved }: the bytes of the device's current memory pool (the one
// cuMemAllocAsync takes from) in use and reserved, or a string naming what failed. The entry points
// are looked up here: the driver table holds only what rxcuda itself calls.
Napi::Value devicePool(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  using GetPool = rxcuda::cu::Result (*)(void** pool, int device);
  using GetAttribute = rxcuda::cu::Result (*)(void* pool, int attribute, void* value);
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  auto getPool = cuda ? reinterpret_cast<GetPool>(dlsym(cuda, "cuDeviceGetMemPool")) : nullptr;
  auto getAttribute = cuda ? reinterpret_cast<GetAttribute>(dlsym(cuda, "cuMemPoolGetAttribute")) : nullptr;
  if (!getPool || !getAttribute) return Napi::String::New(env, "no cuDeviceGetMemPool or cuMemPoolGetAttribute");
  void* pool = nullptr;
  auto r = getPool(&pool, info[0].As<Napi::Number>().Int32Value());
  if (r != rxcuda::cu::kSuccess) return Napi::String::New(env, "cuDeviceGetMemPool: " + rxcuda::cu::errorName(r));
  constexpr int kReservedCurrent = 5, kUsedCurrent = 7;  // CU_MEMPOOL_ATTR_*_MEM_CURRENT
  uint64_t used = 0, reserved = 0;
  if ((r = getAttribute(pool, kUsedCurrent, &used)) != rxcuda::cu::kSuccess ||
      (r = getAttribute(pool, kReservedCurrent, &reserved)) != rxcuda::cu::kSuccess)
    return Napi::String::New(env, "cuMemPoolGetAttribute: " + rxcuda::cu::errorName(r));
  auto out = Napi::Object::New(env);
  out["used"] = Napi::Number::New(env, static_cast<double>(used));
  out["reserved"] = Napi::Number::New(env, static_cast<double>(reserved));
  return out;
}

// synchronizeContext() -> the CUresult name of cuCtxSynchronize on the calling thread's context:
// waits for the device, and lets the memory pools give reserved memory back to the driver.
Napi::Value synchronizeContext(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), rxcuda::cu::errorName(call(driver().cuCtxSynchronize)));
}

// leakOnPurpose(bytes): allocates and drops the only pointer, so that a leak checker has one
// allocation to report (from a call made by JavaScript, as rxcuda's own would be).
Napi::Value leakOnPurpose(const Napi::CallbackInfo& info) {
  size_t bytes = static_cast<size_t>(info[0].As<Napi::Number>().Int64Value());
  void* p = std::malloc(bytes);
  std::memset(p, 0x5a, bytes);
  asm volatile("" : : "r"(p) : "memory");  // kept until here, so the allocation is not elided
  return info.Env().Undefined();
}

Napi::Object init(Napi::Env env, Napi::Object exports) {
  exports["countCalls"] =
      Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&countCalls)));
  exports["waitForWord"] =
      Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&waitForWord)));
  exports["beginCapture"] = Napi::Function::New(env, beginCapture, "beginCapture");
  exports["endCapture"] = Napi::Function::New(env, endCapture, "endCapture");
  exports["mallocInUse"] = Napi::Function::New(env, mallocInUse, "mallocInUse");
  exports["devicePool"] = Napi::Function::New(env, devicePool, "devicePool");
  exports["synchronizeContext"] = Napi::Function::New(env, synchronizeContext, "synchronizeContext");
  exports["leakOnPurpose"] = Napi::Function::New(env, leakOnPurpose, "leakOnPurpose");
  return exports;
}

}  // namespace

NODE_API_MODULE(rxcuda_test, init)
