// Library calls in CUDA graphs. A call is captured natively (cuStreamBeginCapture on a private
// stream of its library object) into a child graph, which becomes a node of the graph being
// built; a call that needs a workspace gets one of the graph's own, an allocation node before the
// child and a free node after it, so that every executable has its own workspace and none is
// shared by two graphs launched at once.
#pragma once
#include <napi.h>

#include <string>

#include "../runtime/addon.hpp"
#include "device.hpp"

namespace rxcuda {

// A library object (cuBLAS handle, cuFFT plans) of one device and environment, whose calls can
// be enqueued on any stream of the device. What it made is destroyed by close(): when the object
// is collected, or when its environment is torn down (a cleanup hook, which runs before the
// environment's objects are finalized, so while the device's context is still retained).
class LibraryCalls {
 public:
  virtual ~LibraryCalls();
  // Enqueues the call `block` describes on `stream`, with `workspace` (`bytes`) instead of the
  // block's own; returns the library's status.
  virtual int enqueue(cu::Stream stream, const double* block, cu::DevicePtr workspace, size_t bytes) = 0;
  // What the object last set on its handles no longer holds (a capture set its own).
  virtual void forget() {}
  // The stream captures are made on: made on first use, non-blocking, destroyed by close().
  cu::Stream captureStream(Napi::Env env);

  cu::Context ctx = nullptr;
  cu::Device device = 0;

 protected:
  // Binds to the device object `value` and registers the cleanup hook.
  void bind(Napi::Env env, const Napi::Value& value);
  // Destroys the handles and the capture stream, with the device's context current. Idempotent;
  // derived classes call it from their destructors.
  void close();
  // Destroys what the derived class made (its handles and plans).
  virtual void closeHandles() = 0;

 private:
  static void teardown(void* self);

  DeviceRef device_;
  napi_env env_ = nullptr;  // while the cleanup hook is registered
  bool closed_ = false;
  cu::Stream captureStream_ = nullptr;
};

// addLibraryNode(graph, kind, library, block, workspaceBytes, deps) and
// setLibraryNode(exec, index, kind, library, block) (kind: 0 cuBLAS, 1 cuFFT).
void defineLibraryGraph(Napi::Env env, Napi::Object exports);

}  // namespace rxcuda
