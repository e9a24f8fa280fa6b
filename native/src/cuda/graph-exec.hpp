// Executables of CUDA graphs: launched on a stream, their nodes' parameters updated in place. An
// executable keeps its graph, whose nodes the updates name.
#pragma once
#include <napi.h>

#include "../runtime/addon.hpp"
#include "graph.hpp"

namespace rxcuda {

class KernelObject;

class GraphExecObject : public Napi::ObjectWrap<GraphExecObject> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit GraphExecObject(const Napi::CallbackInfo& info);  // new GraphExec(graph)
  ~GraphExecObject() override;

  cu::GraphExec exec() const { return exec_; }
  // The graph it was made from, whose nodes its updates name.
  GraphObject* graphObject() const { return GraphObject::Unwrap(graph_.Value()); }

 private:
  Napi::Value launch(const Napi::CallbackInfo& info);     // (stream)
  // bind() -> launchOn(lo, hi): a launch on the stream whose handle's 32-bit halves are given,
  // as a plain Node-API function bound to this executable: no unwrapping on the hot path.
  Napi::Value bind(const Napi::CallbackInfo& info);
  static napi_value launchOn(napi_env env, napi_callback_info info);
  void launchOnStream(Napi::Env env, cu::Stream stream);
  // Gives an update of `node` to the thread that launched the executable last, behind its launches
  // there (a copy's or fill's parameters, or a kernel's launch block); false when no device
  // thread launched it (nothing of it is queued: the update is made now).
  bool update(Op op, cu::GraphNode node, const void* params, size_t bytes, const KernelObject* kernel = nullptr,
              const uint8_t* block = nullptr);
  Napi::Value setKernel(const Napi::CallbackInfo& info);  // (index, kernel, block)
  Napi::Value setCopy(const Napi::CallbackInfo& info);    // (index, dst, src, bytes)
  Napi::Value setFill(const Napi::CallbackInfo& info);    // (index, ptr, elementSize, count, low, high)
  Napi::Value destroy(const Napi::CallbackInfo& info);

  cu::GraphExec exec_ = nullptr;
  cu::Context ctx_ = nullptr;
  Addon* addon_ = nullptr;
  // Where its latest launch or update went (a launch on another thread waits for it: the driver
  // takes one executable's calls from one thread at a time; none once launched on the main
  // thread), and the stream it was launched on last.
  DeviceThread* lastThread_ = nullptr;
  After last_;
  cu::Stream lastStream_ = nullptr;
  Napi::ObjectReference graph_;  // the nodes that updates name live as long as the executable
};

}  // namespace rxcuda
