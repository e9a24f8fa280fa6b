// Executables of CUDA graphs: launched on a stream, their nodes' parameters updated in place. An
// executable keeps its graph, whose nodes the updates name.
#pragma once
#include <napi.h>

#include "../addon.hpp"
#include "graph.hpp"

namespace rxcuda {

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
  Napi::Value setKernel(const Napi::CallbackInfo& info);  // (index, kernel, block)
  Napi::Value setCopy(const Napi::CallbackInfo& info);    // (index, dst, src, bytes)
  Napi::Value setFill(const Napi::CallbackInfo& info);    // (index, ptr, elementSize, count, low, high)
  Napi::Value destroy(const Napi::CallbackInfo& info);

  cu::GraphExec exec_ = nullptr;
  cu::Context ctx_ = nullptr;
  Addon* addon_ = nullptr;
  Napi::ObjectReference graph_;  // the nodes that updates name live as long as the executable
};

}  // namespace rxcuda
