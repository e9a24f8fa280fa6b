#include "graph-exec.hpp"

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
  // In flight, the driver frees it once its launches have completed.
  if (exec_) cu::call(cu::driver().cuGraphExecDestroy, exec_);
}

Napi::Value GraphExecObject::launch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, ctx_);
  cu::Stream stream = StreamObject::Unwrap(info[0].As<Napi::Object>())->stream();
  addon.check(env, cu::call(cu::driver().cuGraphLaunch, exec_, stream), "cuGraphLaunch");
  return env.Undefined();
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
    Napi::Env jsEnv(env);
    if (!self->exec_) throw Napi::TypeError::New(jsEnv, "the executable was destroyed");
    self->addon_->makeCurrent(jsEnv, self->ctx_);
    cu::Result r = cu::call(cu::driver().cuGraphLaunch, self->exec_, stream);
    if (r != cu::kSuccess) self->addon_->throwCuda(jsEnv, r, "cuGraphLaunch");
  } catch (const Napi::Error& error) {
    error.ThrowAsJavaScriptException();
  }
  return nullptr;
}

Napi::Value GraphExecObject::setKernel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, ctx_);
  auto* graph = GraphObject::Unwrap(graph_.Value());
  cu::GraphNode node = graph->nodes(env, info[0]).back();
  auto* kernel = KernelObject::Unwrap(info[1].As<Napi::Object>());
  std::vector<void*> params;
  cu::KernelNodeParams p = kernel->nodeParams(bytesOf(info[2]), params);
  addon.check(env, cu::call(cu::driver().cuGraphExecKernelNodeSetParams, exec_, node, &p),
              "cuGraphExecKernelNodeSetParams");
  return env.Undefined();
}

Napi::Value GraphExecObject::setCopy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, ctx_);
  auto* graph = GraphObject::Unwrap(graph_.Value());
  cu::GraphNode node = graph->nodes(env, info[0]).back();
  cu::Memcpy3D p = copyParams(toU64(info[1]), toU64(info[2]), static_cast<size_t>(info[3].As<Napi::Number>().Int64Value()));
  addon.check(env, cu::call(cu::driver().cuGraphExecMemcpyNodeSetParams, exec_, node, &p, ctx_),
              "cuGraphExecMemcpyNodeSetParams");
  return env.Undefined();
}

Napi::Value GraphExecObject::setFill(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  addon.makeCurrent(env, ctx_);
  auto* graph = GraphObject::Unwrap(graph_.Value());
  const auto& nodes = graph->nodes(env, info[0]);
  auto fills = fillParams(toU64(info[1]), info[2].As<Napi::Number>().Uint32Value(),
                          static_cast<size_t>(info[3].As<Napi::Number>().Int64Value()),
                          info[4].As<Napi::Number>().Uint32Value(), info[5].As<Napi::Number>().Uint32Value());
  if (fills.size() != nodes.size()) throw Napi::RangeError::New(env, "a fill of another element size");
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
