// Driver calls that wait for the whole device (module load and unload, pinned frees), made on a
// libuv worker thread so that the main thread never waits for device work. The call is plain C++
// over plain data; only the settling of its Promise touches Node-API, on the main thread.
#pragma once
#include <napi.h>

#include <functional>
#include <string>

#include "addon.hpp"

namespace rxcuda {

class OffThread : public Napi::AsyncWorker {
 public:
  // Runs `call` (named `name` in errors) on a worker thread with `ctx` current; it returns the
  // CUresult and may set a 64-bit result (a handle), which the Promise resolves to as a bigint.
  using Call = std::function<cu::Result(uint64_t& result)>;
  // What a call of several driver calls may say of its failure beyond the CUresult: the one that
  // failed (the error's `call`; null: `name`), and words that end the error's message (a log).
  struct Failure {
    const char* call = nullptr;
    std::string detail;
  };
  using ExplainedCall = std::function<cu::Result(uint64_t& result, Failure& failure)>;

  // Queues the call and returns its Promise.
  static Napi::Promise run(Napi::Env env, cu::Context ctx, const char* name, Call call);
  static Napi::Promise run(Napi::Env env, cu::Context ctx, const char* name, ExplainedCall call);
  // Queues the call with nobody to tell: its failure (after a sticky error, say) is dropped.
  static void detach(Napi::Env env, cu::Context ctx, const char* name, Call call);

  void Execute() override;
  void OnOK() override;

 private:
  OffThread(Napi::Env env, cu::Context ctx, const char* name, ExplainedCall call, bool settles);

  cu::Context ctx_;
  const char* name_;
  ExplainedCall call_;
  cu::Result status_ = 0;
  Failure failure_;
  uint64_t result_ = 0;
  bool settles_;
  Napi::Promise::Deferred deferred_;
};

}  // namespace rxcuda
