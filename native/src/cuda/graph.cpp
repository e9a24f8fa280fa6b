#include "graph.hpp"

#include <cstring>
#include <string>

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

// "12.4" for 12040.
std::string cudaVersion(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

// Throws CUDA_ERROR_NOT_SUPPORTED, naming `call`, unless the driver is of CUDA `needed` or newer and
// has the entry point: `what` (a conditional node's kind) is what needs it.
void requireDriver(Napi::Env env, const void* entry, const char* call, int needed, const std::string& what) {
  const cu::Driver& d = cu::driver();
  std::string why;
  if (d.version < needed)
    why = what + " needs a CUDA " + cudaVersion(needed) + " driver or newer; this one is " + cudaVersion(d.version);
  else if (!entry)
    why = "this CUDA " + cudaVersion(d.version) + " driver has no " + call + ", which " + what + " needs";
  else
    return;
  Addon::of(env).throwCuda(env, cu::kErrorNotSupported, call,
                           std::string(call) + " failed: CUDA_ERROR_NOT_SUPPORTED (" + why + ")");
}

// Conditional nodes came with CUDA 12.4's driver (handles with 12.3); IF/ELSE and SWITCH with 12.8.
constexpr int kConditionalVersion = 12040;
constexpr int kElseSwitchVersion = 12080;

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
                                     InstanceMethod<&GraphObject::target>("target"),
                                     InstanceMethod<&GraphObject::createCondition>("createCondition"),
                                     InstanceMethod<&GraphObject::addConditional>("addConditional"),
                                     InstanceMethod<&GraphObject::bodyGraph>("bodyGraph"),
                                     InstanceMethod<&GraphObject::destroy>("destroy"),
                                 });
}

GraphObject::GraphObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<GraphObject>(info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = addon.driver(env);
  device_.bind(env, info[0]);
  addon_ = &addon;
  cu::Graph root = nullptr;
  addon.check(env, cu::call(d.cuGraphCreate, &root, 0u), "cuGraphCreate");
  graphs_.push_back(root);
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

void GraphObject::refuseInBody(Napi::Env env, const char* call) const {
  if (target_ == 0) return;
  // cuda.h (CUDA_CONDITIONAL_NODE_PARAMS): "Allowed node types are kernel nodes, empty nodes, child
  // graphs, memsets, memcopies, and conditionals." An event node there would also be launched from
  // a device thread, which hasEvents() keeps event nodes from.
  Addon::of(env).throwCuda(env, cu::kErrorNotSupported, call,
                           std::string(call) + " failed: CUDA_ERROR_NOT_SUPPORTED (a conditional node's body " +
                               "holds kernels, copies, fills, empty nodes, child graphs and conditionals only)");
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
  addon.check(env, cu::call(cu::driver().cuGraphAddKernelNode, &node, targetGraph(), deps.data(), deps.size(), &p),
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
  addon.check(env, cu::call(cu::driver().cuGraphAddMemcpyNode, &node, targetGraph(), deps.data(), deps.size(), &p, device_.ctx),
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
    addon.check(env, cu::call(cu::driver().cuGraphAddMemsetNode, &node, targetGraph(), after.data(), after.size(), &p, device_.ctx),
                "cuGraphAddMemsetNode");
    nodes.push_back(node);
  }
  return added(env, std::move(nodes));
}

Napi::Value GraphObject::addHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  refuseInBody(env, "cuGraphAddHostNode");
  addon.makeCurrent(env, device_.ctx);
  auto deps = dependencies(env, info[2]);
  cu::HostNodeParams p{reinterpret_cast<cu::HostFn>(static_cast<uintptr_t>(toU64(info[0]))),
                       reinterpret_cast<void*>(static_cast<uintptr_t>(toU64(info[1])))};
  cu::GraphNode node = nullptr;
  addon.check(env, cu::call(cu::driver().cuGraphAddHostNode, &node, targetGraph(), deps.data(), deps.size(), &p),
              "cuGraphAddHostNode");
  return added(env, {node});
}

Napi::Value GraphObject::addEvent(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, device_.ctx);
  cu::Event event = EventObject::Unwrap(info[0].As<Napi::Object>())->event();
  bool wait = info[1].As<Napi::Boolean>();
  refuseInBody(env, wait ? "cuGraphAddEventWaitNode" : "cuGraphAddEventRecordNode");
  hasEvents_ = true;
  auto deps = dependencies(env, info[2]);
  cu::GraphNode node = nullptr;
  const cu::Driver& d = cu::driver();
  addon.check(env,
              wait ? cu::call(d.cuGraphAddEventWaitNode, &node, targetGraph(), deps.data(), deps.size(), event)
                   : cu::call(d.cuGraphAddEventRecordNode, &node, targetGraph(), deps.data(), deps.size(), event),
              wait ? "cuGraphAddEventWaitNode" : "cuGraphAddEventRecordNode");
  return added(env, {node});
}

Napi::Value GraphObject::addEmpty(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, device_.ctx);
  auto deps = dependencies(env, info[0]);
  cu::GraphNode node = nullptr;
  addon.check(env, cu::call(cu::driver().cuGraphAddEmptyNode, &node, targetGraph(), deps.data(), deps.size()),
              "cuGraphAddEmptyNode");
  return added(env, {node});
}

Napi::Value GraphObject::target(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint32_t id = info[0].As<Napi::Number>().Uint32Value();
  if (id >= graphs_.size()) throw Napi::RangeError::New(env, "no such graph");
  target_ = id;
  return env.Undefined();
}

Napi::Value GraphObject::createCondition(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  uint32_t id = info[0].As<Napi::Number>().Uint32Value();
  if (id >= graphs_.size()) throw Napi::RangeError::New(env, "no such graph");
  unsigned defaultValue = info[1].As<Napi::Number>().Uint32Value();
  unsigned flags = info[2].As<Napi::Boolean>() ? cu::kGraphCondAssignDefault : 0u;
  const cu::Driver& d = cu::driver();
  requireDriver(env, reinterpret_cast<const void*>(d.cuGraphConditionalHandleCreate), "cuGraphConditionalHandleCreate",
                kConditionalVersion, "a conditional node's handle");
  addon.makeCurrent(env, device_.ctx);
  cu::GraphConditionalHandle handle = 0;
  addon.check(env, cu::call(d.cuGraphConditionalHandleCreate, &handle, graphs_[id], device_.ctx, defaultValue, flags),
              "cuGraphConditionalHandleCreate");
  return Napi::BigInt::New(env, static_cast<uint64_t>(handle));
}

Napi::Value GraphObject::addConditional(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  uint32_t type = info[1].As<Napi::Number>().Uint32Value();
  uint32_t size = info[2].As<Napi::Number>().Uint32Value();
  if (type > cu::kGraphCondTypeSwitch) throw Napi::RangeError::New(env, "no such conditional node type");
  const char* kinds[] = {size == 2 ? "an IF/ELSE" : "an IF", "a WHILE", "a SWITCH"};
  bool recent = type == cu::kGraphCondTypeSwitch || (type == cu::kGraphCondTypeIf && size == 2);
  requireDriver(env, reinterpret_cast<const void*>(cu::driver().cuGraphAddNode), "cuGraphAddNode",
                recent ? kElseSwitchVersion : kConditionalVersion, std::string(kinds[type]) + " conditional node");
  addon.makeCurrent(env, device_.ctx);
  auto deps = dependencies(env, info[3]);
  cu::GraphNodeParams p{};  // cuda.h: every byte past the conditional's parameters must be zero
  p.type = cu::kGraphNodeTypeConditional;
  p.conditional.handle = toU64(info[0]);
  p.conditional.type = static_cast<cu::GraphConditionalNodeType>(type);
  p.conditional.size = size;
  p.conditional.ctx = device_.ctx;
  cu::GraphNode node = nullptr;
  addon.check(env, cu::call(cu::driver().cuGraphAddNode, &node, targetGraph(), deps.data(), deps.size(), &p),
              "cuGraphAddNode");
  // The driver's array lives as long as the node; the ids of its graphs are ours to keep.
  auto first = static_cast<uint32_t>(graphs_.size());
  const cu::Graph* made = p.conditional.phGraph_out;
  if (made) graphs_.insert(graphs_.end(), made, made + size);
  bodies_[static_cast<uint32_t>(nodes_.size())] = {first, made ? size : 0};
  return added(env, {node});
}

Napi::Value GraphObject::bodyGraph(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto found = bodies_.find(info[0].As<Napi::Number>().Uint32Value());
  uint32_t which = info[1].As<Napi::Number>().Uint32Value();
  if (found == bodies_.end() || which >= found->second.second)
    throw Napi::RangeError::New(env, "no such conditional body");
  return Napi::Number::New(env, found->second.first + which);
}

void GraphObject::release() {
  if (graphs_.empty()) return;
  addon_->drain();
  cu::call(cu::driver().cuGraphDestroy, graphs_[0]);  // and the conditional nodes' bodies with it
  graphs_.clear();
  target_ = 0;
  bodies_.clear();
  nodes_.clear();
}

Napi::Value GraphObject::destroy(const Napi::CallbackInfo& info) {
  release();
  return info.Env().Undefined();
}

}  // namespace rxcuda
