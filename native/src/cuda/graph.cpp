#include "graph.hpp"

#include <cstring>

#include "event.hpp"
#include "kernel.hpp"
#include "stream.hpp"

namespace rxcuda {

const uint8_t* bytesOf(const Napi::Value& value) {
  return value.As<Napi::Uint8Array>().Data();
}

namespace {

// The launch attributes that a block's header flags ask for, set on a kernel node.
void setKernelAttributes(Napi::Env env, cu::GraphNode node, const uint8_t* block) {
  uint32_t h[kLaunchHeaderWords];
  std::memcpy(h, block, sizeof h);
  const cu::Driver& d = cu::driver();
  cu::LaunchAttributeValue value{};
  if (h[kFlags] & kFlagCooperative) {
    value.cooperative = 1;
    Addon::of(env).check(env, cu::call(d.cuGraphKernelNodeSetAttribute, node, int{cu::kLaunchAttrCooperative}, &value),
                         "cuGraphKernelNodeSetAttribute");
  }
  if (h[kFlags] & kFlagCluster) {
    value = {};
    value.clusterDim = {h[kClusterX], h[kClusterY], h[kClusterZ]};
    Addon::of(env).check(env, cu::call(d.cuGraphKernelNodeSetAttribute, node, int{cu::kLaunchAttrClusterDimension}, &value),
                         "cuGraphKernelNodeSetAttribute");
  }
}

}  // namespace

cu::Memcpy3D copyParams(cu::DevicePtr dst, cu::DevicePtr src, size_t bytes) {
  cu::Memcpy3D p{};
  p.srcMemoryType = cu::kMemoryTypeUnified;
  p.srcDevice = src;
  p.dstMemoryType = cu::kMemoryTypeUnified;
  p.dstDevice = dst;
  p.WidthInBytes = bytes;
  p.Height = 1;
  p.Depth = 1;
  return p;
}

std::vector<cu::MemsetNodeParams> fillParams(cu::DevicePtr ptr, unsigned elementSize, size_t count,
                                             unsigned low, unsigned high) {
  // An 8-byte pattern as two strided 4-byte fills: one column of low words, one of high.
  if (elementSize == 8) return {{ptr, 8, low, 4, 1, count}, {ptr + 4, 8, high, 4, 1, count}};
  return {{ptr, 0, low, elementSize, count, 1}};
}

void GraphObject::define(Napi::Env env, Napi::Object exports) {
  exports["Graph"] = DefineClass(env, "Graph",
                                 {
                                     InstanceMethod<&GraphObject::addKernel>("addKernel"),
                                     InstanceMethod<&GraphObject::addCopy>("addCopy"),
                                     InstanceMethod<&GraphObject::addFill>("addFill"),
                                     InstanceMethod<&GraphObject::addHost>("addHost"),
                                     InstanceMethod<&GraphObject::addEvent>("addEvent"),
                                     InstanceMethod<&GraphObject::addEmpty>("addEmpty"),
                                     InstanceMethod<&GraphObject::destroy>("destroy"),
                                 });
}

GraphObject::GraphObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<GraphObject>(info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = addon.driver(env);
  device_.bind(env, info[0]);
  addon_ = &addon;
  addon.check(env, cu::call(d.cuGraphCreate, &graph_, 0u), "cuGraphCreate");
}

GraphObject::~GraphObject() { release(); }

const std::vector<cu::GraphNode>& GraphObject::nodes(Napi::Env env, const Napi::Value& index) const {
  uint32_t i = index.As<Napi::Number>().Uint32Value();
  if (i >= nodes_.size()) throw Napi::RangeError::New(env, "no such graph node");
  return nodes_[i];
}

std::vector<cu::GraphNode> GraphObject::dependencies(Napi::Env env, const Napi::Value& deps) const {
  auto indices = deps.As<Napi::Uint32Array>();
  std::vector<cu::GraphNode> out;
  out.reserve(indices.ElementLength());
  for (size_t i = 0; i < indices.ElementLength(); i++) out.push_back(nodes(env, Napi::Number::New(env, indices[i])).back());
  return out;
}

Napi::Value GraphObject::added(Napi::Env env, std::vector<cu::GraphNode> nodes) {
  nodes_.push_back(std::move(nodes));
  return Napi::Number::New(env, static_cast<double>(nodes_.size() - 1));
}

Napi::Value GraphObject::addKernel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, device_.ctx);
  auto* kernel = KernelObject::Unwrap(info[0].As<Napi::Object>());
  const uint8_t* block = bytesOf(info[1]);
  auto deps = dependencies(env, info[2]);
  std::vector<void*> params;
  cu::KernelNodeParams p = kernel->nodeParams(block, params);
  cu::GraphNode node = nullptr;
  addon.check(env, cu::call(cu::driver().cuGraphAddKernelNode, &node, graph_, deps.data(), deps.size(), &p),
              "cuGraphAddKernelNode");
  setKernelAttributes(env, node, block);
  return added(env, {node});
}

Napi::Value GraphObject::addCopy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, device_.ctx);
  auto deps = dependencies(env, info[3]);
  cu::Memcpy3D p = copyParams(toU64(info[0]), toU64(info[1]), static_cast<size_t>(info[2].As<Napi::Number>().Int64Value()));
  cu::GraphNode node = nullptr;
  addon.check(env, cu::call(cu::driver().cuGraphAddMemcpyNode, &node, graph_, deps.data(), deps.size(), &p, device_.ctx),
              "cuGraphAddMemcpyNode");
  return added(env, {node});
}

Napi::Value GraphObject::addFill(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, device_.ctx);
  auto deps = dependencies(env, info[5]);
  auto fills = fillParams(toU64(info[0]), info[1].As<Napi::Number>().Uint32Value(),
                          static_cast<size_t>(info[2].As<Napi::Number>().Int64Value()),
                          info[3].As<Napi::Number>().Uint32Value(), info[4].As<Napi::Number>().Uint32Value());
  std::vector<cu::GraphNode> nodes;
  for (const auto& p : fills) {
    cu::GraphNode node = nullptr;
    // The second column follows the first, so that later nodes depending on it depend on both.
    const std::vector<cu::GraphNode>& after = nodes.empty() ? deps : nodes;
    addon.check(env, cu::call(cu::driver().cuGraphAddMemsetNode, &node, graph_, after.data(), after.size(), &p, device_.ctx),
                "cuGraphAddMemsetNode");
    nodes.push_back(node);
  }
  return added(env, std::move(nodes));
}

Napi::Value GraphObject::addHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, device_.ctx);
  auto deps = dependencies(env, info[2]);
  cu::HostNodeParams p{reinterpret_cast<cu::HostFn>(static_cast<uintptr_t>(toU64(info[0]))),
                       reinterpret_cast<void*>(static_cast<uintptr_t>(toU64(info[1])))};
  cu::GraphNode node = nullptr;
  addon.check(env, cu::call(cu::driver().cuGraphAddHostNode, &node, graph_, deps.data(), deps.size(), &p),
              "cuGraphAddHostNode");
  return added(env, {node});
}

Napi::Value GraphObject::addEvent(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, device_.ctx);
  cu::Event event = EventObject::Unwrap(info[0].As<Napi::Object>())->event();
  bool wait = info[1].As<Napi::Boolean>();
  hasEvents_ = true;
  auto deps = dependencies(env, info[2]);
  cu::GraphNode node = nullptr;
  const cu::Driver& d = cu::driver();
  addon.check(env,
              wait ? cu::call(d.cuGraphAddEventWaitNode, &node, graph_, deps.data(), deps.size(), event)
                   : cu::call(d.cuGraphAddEventRecordNode, &node, graph_, deps.data(), deps.size(), event),
              wait ? "cuGraphAddEventWaitNode" : "cuGraphAddEventRecordNode");
  return added(env, {node});
}

Napi::Value GraphObject::addEmpty(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, device_.ctx);
  auto deps = dependencies(env, info[0]);
  cu::GraphNode node = nullptr;
  addon.check(env, cu::call(cu::driver().cuGraphAddEmptyNode, &node, graph_, deps.data(), deps.size()),
              "cuGraphAddEmptyNode");
  return added(env, {node});
}

void GraphObject::release() {
  if (!graph_) return;
  addon_->drain();
  cu::call(cu::driver().cuGraphDestroy, graph_);
  graph_ = nullptr;
  nodes_.clear();
}

Napi::Value GraphObject::destroy(const Napi::CallbackInfo& info) {
  release();
  return info.Env().Undefined();
}

}  // namespace rxcuda
