// Library work that may wait for the whole device (making a cuBLAS handle or a cuFFT plan, which
// allocate and upload tables; destroying them, which frees device memory), made on a libuv worker
// thread so that the main thread never waits for the device. The Promise resolves to
// [status, first, second]: the library's status and what the work produced.
#pragma once
#include <napi.h>

#include <functional>

#include "../runtime/addon.hpp"

namespace rxcuda {

class LibraryWork : public Napi::AsyncWorker {
 public:
  // Returns the library's status; may set two results (a handle, a size).
  using Call = std::function<int(uint64_t& first, uint64_t& second)>;

  // Runs `call` with `ctx` current on a worker thread; the Promise settles on the main thread.
  static Napi::Promise run(Napi::Env env, cu::Context ctx, Call call);
  // The same with nobody to tell (a destroy).
  static void detach(Napi::Env env, cu::Context ctx, Call call);

  void Execute() override;
  void OnOK() override;

 private:
  LibraryWork(Napi::Env env, cu::Context ctx, Call call, bool settles);

  cu::Context ctx_;
  Call call_;
  cu::Result context_ = cu::kSuccess;
  int status_ = 0;
  uint64_t first_ = 0, second_ = 0;
  bool settles_;
  Napi::Promise::Deferred deferred_;
};

}  // namespace rxcuda
