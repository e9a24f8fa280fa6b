#include "graph-exec.hpp"

#include <cstring>

#include "graph.hpp"
#include "kernel.hpp"
#include "stream.hpp"

namespace rxcuda {

void GraphExecObject::define(Napi::Env env, Napi::Object exports) {
  exports["GraphExec"] = DefineClass(env, "GraphExec",
                                     {
                                         InstanceMethod<&GraphExecObject::launch>("launch"),
                                         InstanceMethod<&GraphExecObject::bind>("bind"),
                                         InstanceMethod<&GraphExecObject::setKernel>("setKernel"),
                                         InstanceMethod<&GraphExecObject::setCopy>("setCopy"),
                                         InstanceMethod<&GraphExecObject::setFill>("setFill"),
                                         InstanceMethod<&GraphExecObject::destroy>("destroy"),
                                     });
}

GraphExecObject::GraphExecObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<GraphExecObject>(info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  auto* graph = GraphObject::Unwrap(info[0].As<Napi::Object>());
  graph_ = Napi::Persistent(info[0].As<Napi::Object>());
  ctx_ = graph->context();
  addon_ = &addon;
  addon.makeCurrent(env, ctx_);
  addon.check(env, cu::call(addon.driver(env).cuGraphInstantiateWithFlags, &exec_, graph->graph(), 0ull),
              "cuGraphInstantiateWithFlags");
}

GraphExecObject::~GraphExecObject() {
  // In flight, the driver frees it once its launches have completed; queued, they go first.
  if (!exec_) return;
  addon_->drain();
  cu::call(cu::driver().cuGraphExecDestroy, exec_);
}

Napi::Value GraphExecObject::launch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  cu::Stream stream = StreamObject::Unwrap(info[0].As<Napi::Object>())->stream();
  launchOnStream(env, stream);
  return env.Undefined();
}

// A stream given to a device thread gets the launch in its queue; another one (a foreign stream)
// gets it now, after the device threads' queued work.
void GraphExecObject::launchOnStream(Napi::Env env, cu::Stream stream) {
  if (!exec_) throw Napi::TypeError::New(env, "the executable was destroyed");
  Addon& addon = *addon_;
  LaneState* lane = addon.submission ? addon.submission->laneOf(stream) : nullptr;
  if (lane && !graphObject()->hasEvents()) {
    auto* c = reinterpret_cast<GraphLaunchCommand*>(lane->thread->begin(Op::GraphLaunch, lane, sizeof(GraphLaunchCommand)));
    *c = GraphLaunchCommand{exec_, last_};
    lane->thread->commit(&addon.current);
    lastThread_ = lane->thread;
    last_ = lane->thread->last();
    lastStream_ = stream;
    return;
  }
  addon.makeCurrent(env, ctx_);
  lastThread_ = nullptr;
  last_ = {};
  addon.check(env, cu::call(cu::driver().cuGraphLaunch, exec_, stream), "cuGraphLaunch");
}

Napi::Value GraphExecObject::bind(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  napi_value fn = nullptr;
  NAPI_THROW_IF_FAILED(env, napi_create_function(env, "launchOn", NAPI_AUTO_LENGTH, &GraphExecObject::launchOn, this, &fn),
                       Napi::Value());
  return Napi::Value(env, fn);
}

napi_value GraphExecObject::launchOn(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value args[2];
  void* data = nullptr;
  napi_get_cb_info(env, info, &argc, args, nullptr, &data);
  auto* self = static_cast<GraphExecObject*>(data);
  uint32_t lo = 0, hi = 0;
  napi_get_value_uint32(env, args[0], &lo);
  napi_get_value_uint32(env, args[1], &hi);
  auto stream = reinterpret_cast<cu::Stream>(static_cast<uintptr_t>((uint64_t{hi} << 32) | lo));
  // C++ exceptions must not leave a plain Node-API callback: errors become pending JS exceptions.
  try {
    self->launchOnStream(Napi::Env(env), stream);
  } catch (const Napi::Error& error) {
    error.ThrowAsJavaScriptException();
  }
  return nullptr;
}

bool GraphExecObject::update(Op op, cu::GraphNode node, const void* params, size_t bytes, const KernelObject* kernel,
                             const uint8_t* block) {
  if (!lastThread_) return false;
  size_t extra = kernel ? kernel->launchBytes() : 0;
  DeviceThread* thread = lastThread_;
  uint8_t* at = thread->begin(op, nullptr, sizeof(ExecUpdateCommand), extra);
  auto* u = reinterpret_cast<ExecUpdateCommand*>(at);
  u->exec = exec_;
  u->node = node;
  u->ctx = ctx_;
  u->reportAs = lastStream_;
  if (params) std::memcpy(&u->copy, params, bytes);
  if (kernel) kernel->writeLaunchFrom(block, at + sizeof(ExecUpdateCommand));
  thread->commit();
  last_ = thread->last();
  return true;
}

// The updates below take an index of the graph's one list of nodes, inside conditional nodes'
// bodies too: the driver updates those under the same rules (cuda.h, cuGraphExecUpdate: "Changing
// parameters of nodes within the conditional body graph is subject to the rules above"). A
// conditional node's own parameters cannot change ("Changing node parameters is not supported").
Napi::Value GraphExecObject::setKernel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  auto* graph = GraphObject::Unwrap(graph_.Value());
  cu::GraphNode node = graph->nodes(env, info[0]).back();
  auto* kernel = KernelObject::Unwrap(info[1].As<Napi::Object>());
  if (info[2].As<Napi::Uint8Array>().ByteLength() < kernel->blockBytes())
    throw Napi::RangeError::New(env, "a launch block shorter than the kernel's");
  if (update(Op::ExecKernel, node, nullptr, 0, kernel, bytesOf(info[2]))) return env.Undefined();
  addon.makeCurrentOnly(env, ctx_);  // no launch of it is queued: nothing to wait for
  std::vector<void*> params;
  cu::KernelNodeParams p = kernel->nodeParams(bytesOf(info[2]), params);
  addon.check(env, cu::call(cu::driver().cuGraphExecKernelNodeSetParams, exec_, node, &p),
              "cuGraphExecKernelNodeSetParams");
  return env.Undefined();
}

Napi::Value GraphExecObject::setCopy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  auto* graph = GraphObject::Unwrap(graph_.Value());
  cu::GraphNode node = graph->nodes(env, info[0]).back();
  cu::Memcpy3D p = copyParams(toU64(info[1]), toU64(info[2]), static_cast<size_t>(info[3].As<Napi::Number>().Int64Value()));
  if (update(Op::ExecCopy, node, &p, sizeof p)) return env.Undefined();
  addon.makeCurrentOnly(env, ctx_);
  addon.check(env, cu::call(cu::driver().cuGraphExecMemcpyNodeSetParams, exec_, node, &p, ctx_),
              "cuGraphExecMemcpyNodeSetParams");
  return env.Undefined();
}

Napi::Value GraphExecObject::setFill(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  auto* graph = GraphObject::Unwrap(graph_.Value());
  const auto& nodes = graph->nodes(env, info[0]);
  auto fills = fillParams(toU64(info[1]), info[2].As<Napi::Number>().Uint32Value(),
                          static_cast<size_t>(info[3].As<Napi::Number>().Int64Value()),
                          info[4].As<Napi::Number>().Uint32Value(), info[5].As<Napi::Number>().Uint32Value());
  if (fills.size() != nodes.size()) throw Napi::RangeError::New(env, "a fill of another element size");
  if (lastThread_) {
    for (size_t i = 0; i < fills.size(); i++) update(Op::ExecFill, nodes[i], &fills[i], sizeof fills[i]);
    return env.Undefined();
  }
  addon.makeCurrentOnly(env, ctx_);
  for (size_t i = 0; i < fills.size(); i++)
    addon.check(env, cu::call(cu::driver().cuGraphExecMemsetNodeSetParams, exec_, nodes[i], &fills[i], ctx_),
                "cuGraphExecMemsetNodeSetParams");
  return env.Undefined();
}

Napi::Value GraphExecObject::destroy(const Napi::CallbackInfo& info) {
  if (exec_) {
    Napi::Env env = info.Env();
    Addon::of(env).makeCurrent(env, ctx_);
    cu::call(cu::driver().cuGraphExecDestroy, exec_);
    exec_ = nullptr;
  }
  if (!graph_.IsEmpty()) GraphObject::Unwrap(graph_.Value())->release();
  graph_.Reset();
  return info.Env().Undefined();
}

}  // namespace rxcuda
