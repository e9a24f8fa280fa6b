// CUDA graphs built node by node from what TypeScript recorded (their executables are in
// graph-exec.hpp). A node is named by its index in the order it was added; its dependencies are
// indices of earlier nodes. Conditional nodes' bodies are graphs of their own: graph 0 is the root,
// each body gets the next id, and nodes go into the graph last targeted, numbered in one sequence.
#pragma once
#include <napi.h>

#include <map>
#include <utility>
#include <vector>

#include "../runtime/addon.hpp"
#include "device.hpp"

namespace rxcuda {

class GraphObject : public Napi::ObjectWrap<GraphObject> {
 public:
  static void define(Napi::Env env, Napi::Object exports);
  explicit GraphObject(const Napi::CallbackInfo& info);  // new Graph(device)
  ~GraphObject() override;

  // The root graph, which executables instantiate; null once released.
  cu::Graph graph() const { return graphs_.empty() ? nullptr : graphs_[0]; }
  // The graph that nodes are added to now (target()).
  cu::Graph targetGraph() const { return target_ < graphs_.size() ? graphs_[target_] : nullptr; }
  // Throws CUDA_ERROR_NOT_SUPPORTED, naming `call`, while the target is a conditional node's body:
  // for nodes a body may not hold.
  void refuseInBody(Napi::Env env, const char* call) const;
  cu::Context context() const { return device_.ctx; }
  // The driver nodes that stand for node `index` (an 8-byte fill is two).
  const std::vector<cu::GraphNode>& nodes(Napi::Env env, const Napi::Value& index) const;
  // Destroys the native graph now, after the device threads' queued work (an update may name its
  // nodes). Idempotent.
  void release();
  // Whether it has event nodes: its launches then go to the driver from the main thread, so that
  // the cross-stream order of its records and waits holds whichever device thread the streams use.
  bool hasEvents() const { return hasEvents_; }
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
  Napi::Value target(const Napi::CallbackInfo& info);    // (graphId)
  // (graphId, defaultValue, assignDefault) -> the handle (a bigint)
  Napi::Value createCondition(const Napi::CallbackInfo& info);
  // (handle, type: 0 IF, 1 WHILE, 2 SWITCH, size, deps) -> index
  Napi::Value addConditional(const Napi::CallbackInfo& info);
  Napi::Value bodyGraph(const Napi::CallbackInfo& info);  // (node, which) -> graphId
  Napi::Value destroy(const Napi::CallbackInfo& info);

  // graphs_[0] is ours; the bodies after it belong to the driver, which frees them with the root.
  std::vector<cu::Graph> graphs_;
  size_t target_ = 0;
  DeviceRef device_;
  std::vector<std::vector<cu::GraphNode>> nodes_;
  // A conditional node's index -> the id of its first body graph and how many it has.
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> bodies_;
  bool hasEvents_ = false;
  Addon* addon_ = nullptr;
};


// A launch block's bytes, as TypeScript packed them (a Uint8Array).
const uint8_t* bytesOf(const Napi::Value& value);

// The driver's parameters for a copy and for the one or two fills that set a pattern.
cu::Memcpy3D copyParams(cu::DevicePtr dst, cu::DevicePtr src, size_t bytes);
std::vector<cu::MemsetNodeParams> fillParams(cu::DevicePtr ptr, unsigned elementSize, size_t count,
                                             unsigned low, unsigned high);

}  // namespace rxcuda
