// Native helpers for the tests: what another addon would hand rxcuda (compiled CUhostFns), and
// graph capture begun and ended from outside rxcuda.
#include <napi.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <cstdint>

#include "../../native/src/cuda/driver.hpp"

namespace {

using rxcuda::cu::call;
using rxcuda::cu::driver;

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

Napi::Object init(Napi::Env env, Napi::Object exports) {
  exports["countCalls"] =
      Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&countCalls)));
  exports["waitForWord"] =
      Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&waitForWord)));
  exports["beginCapture"] = Napi::Function::New(env, beginCapture, "beginCapture");
  exports["endCapture"] = Napi::Function::New(env, endCapture, "endCapture");
  return exports;
}

}  // namespace

NODE_API_MODULE(rxcuda_test, init)
