// Per-environment state: one Addon per Node.js environment (main thread or worker), handed to every
// class. Nothing here is global. Made and destroyed by native/src/addon.cpp, the top native layer.
#pragma once
#include <napi.h>

#include <memory>

#include "completion.hpp"
#include "host-copy.hpp"
#include "../driver/driver.hpp"
#include "spinner.hpp"
#include "submission.hpp"

namespace rxcuda {

namespace host {
class Pool;  // host/pool.hpp: a backend above this layer, which only keeps its pool here
}

struct Addon {
  Napi::FunctionReference cudaError, nvrtcError;  // constructors handed over by TypeScript
  Completion* completion = nullptr;
  std::unique_ptr<Spinner> spinner;  // started by the first low-latency wait
  // The copy threads (between pageable and pinned host memory), started by the first such copy.
  std::unique_ptr<CopyPool> copies;
  cu::Context current = nullptr;  // the context last made current on this thread
  // The host backend's thread pool, which runs host-device streams; started by the first one.
  std::shared_ptr<host::Pool> hostPool;
  // The device threads (started by the first owned CUDA stream). Declared last: destroyed first,
  // each thread submitting what it holds while the spinner and the completion queue still live.
  std::unique_ptr<Submission> submission;

  // Closes the host backend's thread pool (native/src/addon.cpp, which knows it): host-device
  // streams' work still runs after the environment has gone; the pool's threads then end.
  ~Addon();

  static Addon& of(Napi::Env env) { return *env.GetInstanceData<Addon>(); }

  // Makes ctx current on the main thread, skipping the call when it already is, after the device
  // threads have submitted what they hold: a driver call of the main thread comes after the
  // commands given before it (rule 9's exception: what stays on the main thread).
  void makeCurrent(Napi::Env env, cu::Context ctx) {
    drain();
    makeCurrentOnly(env, ctx);
  }
  // The same without waiting for the device threads: for calls whose order does not matter
  // (creating objects, stream-ordered allocations, which may come early).
  void makeCurrentOnly(Napi::Env env, cu::Context ctx);
  // Makes a command's driver calls now, on the main thread, after the device threads' queued
  // work: for a stream of no device thread (a foreign one). Returns the failing CUresult, and
  // names the call.
  cu::Result submitNow(Napi::Env env, Op op, LaneState& lane, const void* payload, size_t bytes, const char*& call);
  // Waits until the device threads have submitted everything given to them.
  void drain() {
    if (submission) submission->drain();
  }
  // The device threads, started on first use.
  Submission& submitter() {
    if (!submission) submission = std::make_unique<Submission>(completion);
    return *submission;
  }
  // Throws a CudaError for r (when it is not CUDA_SUCCESS), naming the driver call.
  void check(Napi::Env env, cu::Result r, const char* call) const {
    if (r != cu::kSuccess) throwCuda(env, r, call);
  }
  [[noreturn]] void throwCuda(Napi::Env env, cu::Result r, const char* call) const;
  // The same with a message of rxcuda's own (the host backend's errors).
  [[noreturn]] void throwCuda(Napi::Env env, cu::Result r, const char* call,
                              const std::string& message) const;
  [[noreturn]] void throwNvrtc(Napi::Env env, int code, const std::string& message,
                               const std::string& log) const;
  // The driver table, or a CudaError that says why there is none.
  const cu::Driver& driver(Napi::Env env) const;
};

// BigInt or safe-integer Number to an unsigned 64-bit value (handles and pointers).
uint64_t toU64(const Napi::Value& v);

}  // namespace rxcuda
