// CUDA graphs built node by node from what TypeScript recorded, and their executables. A node is
// named by its index in the order it was added; its dependencies are indices of earlier nodes.
#pragma once
#include <napi.h>

#include <vector>

#include "../addon.hpp"
#include "device.hpp"

namespace rxcuda {

class GraphObject : public Napi::ObjectWrap<GraphObject> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit GraphObject(const Napi::CallbackInfo& info);  // new Graph(device)
  ~GraphObject() override;

  cu::Graph graph() const { return graph_; }
  cu::Context context() const { return device_.ctx; }
  // The driver nodes that stand for node `index` (an 8-byte fill is two).
  const std::vector<cu::GraphNode>& nodes(Napi::Env env, const Napi::Value& index) const;
  // Destroys the native graph now. Idempotent.
  void release();
  // The driver nodes of the indices in `deps` (a Uint32Array): what a new node follows.
  std::vector<cu::GraphNode> dependencies(Napi::Env env, const Napi::Value& deps) const;
  // Records `nodes` as the next node (library-graph.cpp adds several for a library call).
  Napi::Value added(Napi::Env env, std::vector<cu::GraphNode> nodes);

 private:
  // addKernel(kernel, block: Uint8Array, deps: Uint32Array) -> index; likewise for the others.
  Napi::Value addKernel(const Napi::CallbackInfo& info);
  Napi::Value addCopy(const Napi::CallbackInfo& info);   // (dst, src, bytes, deps)
  Napi::Value addFill(const Napi::CallbackInfo& info);   // (ptr, elementSize, count, low, high, deps)
  Napi::Value addHost(const Napi::CallbackInfo& info);   // (fn, userData, deps)
  Napi::Value addEvent(const Napi::CallbackInfo& info);  // (event, wait: boolean, deps)
  Napi::Value addEmpty(const Napi::CallbackInfo& info);  // (deps)
  Napi::Value destroy(const Napi::CallbackInfo& info);

  cu::Graph graph_ = nullptr;
  DeviceRef device_;
  std::vector<std::vector<cu::GraphNode>> nodes_;
};

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

// The driver's parameters for a copy and for the one or two fills that set a pattern.
cu::Memcpy3D copyParams(cu::DevicePtr dst, cu::DevicePtr src, size_t bytes);
std::vector<cu::MemsetNodeParams> fillParams(cu::DevicePtr ptr, unsigned elementSize, size_t count,
                                             unsigned low, unsigned high);

}  // namespace rxcuda
