#include "library-graph.hpp"

#include <vector>

#include "blas.hpp"
#include "fft.hpp"
#include "graph-exec.hpp"
#include "graph.hpp"

namespace rxcuda {

LibraryCalls::~LibraryCalls() {
  if (env_) napi_remove_env_cleanup_hook(env_, &LibraryCalls::teardown, this);
}

void LibraryCalls::bind(Napi::Env env, const Napi::Value& value) {
  Addon::of(env).driver(env);
  device_.bind(env, value);
  ctx = device_.ctx;
  device = DeviceObject::from(value)->device();
  if (napi_add_env_cleanup_hook(env, &LibraryCalls::teardown, this) == napi_ok) env_ = env;
}

void LibraryCalls::teardown(void* self) {
  auto* calls = static_cast<LibraryCalls*>(self);
  calls->env_ = nullptr;  // the hook is being run: nothing to remove
  calls->close();
}

void LibraryCalls::close() {
  if (closed_) return;
  closed_ = true;
  const cu::Driver& d = cu::driver();
  cu::call(d.cuCtxSetCurrent, ctx);
  closeHandles();
  if (captureStream_) cu::call(d.cuStreamDestroy, captureStream_);
  captureStream_ = nullptr;
}

cu::Stream LibraryCalls::captureStream(Napi::Env env) {
  if (!captureStream_)
    Addon::of(env).check(env, cu::call(cu::driver().cuStreamCreateWithPriority, &captureStream_, cu::kStreamNonBlocking, 0),
                         "cuStreamCreateWithPriority");
  return captureStream_;
}

namespace {

LibraryCalls& libraryOf(const Napi::Value& kind, const Napi::Value& object) {
  if (kind.As<Napi::Number>().Int32Value() == 0) return *BlasObject::Unwrap(object.As<Napi::Object>());
  return *FftObject::Unwrap(object.As<Napi::Object>());
}

// Captures the call into a new graph (*out). Returns the library's status (nothing is made when
// it is not 0); a failure of the driver's capture throws its CudaError.
int capture(Napi::Env env, LibraryCalls& library, const double* block, cu::DevicePtr workspace, size_t bytes,
            cu::Graph* out) {
  Addon& addon = Addon::of(env);
  const cu::Driver& d = cu::driver();
  cu::Stream stream = library.captureStream(env);
  // Relaxed: a first call may load the library's kernels, which the other modes forbid meanwhile.
  addon.check(env, cu::call(d.cuStreamBeginCapture, stream, cu::kCaptureModeRelaxed), "cuStreamBeginCapture");
  int status = library.enqueue(stream, block, workspace, bytes);
  cu::Graph graph = nullptr;
  cu::Result ended = cu::call(d.cuStreamEndCapture, stream, &graph);
  library.forget();
  if (status != 0 || ended != cu::kSuccess) {
    if (graph) cu::call(d.cuGraphDestroy, graph);
    if (status != 0) return status;
    addon.throwCuda(env, ended, "cuStreamEndCapture");
  }
  *out = graph;
  return 0;
}

// addLibraryNode(graph, kind, library, block, workspaceBytes, deps) -> the node's index, or
// -1 - status when the library refused the call under capture (nothing was added then).
Napi::Value addLibraryNode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = cu::driver();
  auto* graph = GraphObject::Unwrap(info[0].As<Napi::Object>());
  LibraryCalls& library = libraryOf(info[1], info[2]);
  const double* block = info[3].As<Napi::Float64Array>().Data();
  auto bytes = static_cast<size_t>(info[4].As<Napi::Number>().Int64Value());
  std::vector<cu::GraphNode> after = graph->dependencies(env, info[5]);
  // A workspace's allocation and free nodes cannot go into a conditional node's body.
  if (bytes > 0) graph->refuseInBody(env, "cuGraphAddMemAllocNode");
  cu::Graph target = graph->targetGraph();
  addon.makeCurrent(env, graph->context());
  std::vector<cu::GraphNode> nodes;
  cu::DevicePtr workspace = 0;
  if (bytes > 0) {
    cu::MemAllocNodeParams p{};
    p.poolProps.allocType = cu::kMemAllocationTypePinned;
    p.poolProps.location = {cu::kMemLocationTypeDevice, library.device};
    p.bytesize = bytes;
    cu::GraphNode alloc = nullptr;
    addon.check(env, cu::call(d.cuGraphAddMemAllocNode, &alloc, target, after.data(), after.size(), &p),
                "cuGraphAddMemAllocNode");
    workspace = p.dptr;
    nodes.push_back(alloc);
    after = {alloc};
  }
  cu::Graph child = nullptr;
  // The graph being built is destroyed when this fails: the allocation node goes with it.
  if (int status = capture(env, library, block, workspace, bytes, &child); status != 0)
    return Napi::Number::New(env, -1 - status);
  cu::GraphNode node = nullptr;
  cu::Result added = cu::call(d.cuGraphAddChildGraphNode, &node, target, after.data(), after.size(), child);
  cu::call(d.cuGraphDestroy, child);  // the node holds a clone
  addon.check(env, added, "cuGraphAddChildGraphNode");
  nodes.push_back(node);
  if (bytes > 0) {
    cu::GraphNode free = nullptr;
    addon.check(env, cu::call(d.cuGraphAddMemFreeNode, &free, target, &node, size_t{1}, workspace),
                "cuGraphAddMemFreeNode");
    nodes.push_back(free);
  }
  return graph->added(env, std::move(nodes));
}

// setLibraryNode(exec, index, kind, library, block) -> the library's status: the executable's
// node `index` runs the call `block` describes from its next launch, captured again with the
// node's own workspace (the same topology: the caller compared the calls' shapes).
Napi::Value setLibraryNode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Addon& addon = Addon::of(env);
  const cu::Driver& d = cu::driver();
  auto* exec = GraphExecObject::Unwrap(info[0].As<Napi::Object>());
  GraphObject* graph = exec->graphObject();
  const std::vector<cu::GraphNode>& nodes = graph->nodes(env, info[1]);
  LibraryCalls& library = libraryOf(info[2], info[3]);
  const double* block = info[4].As<Napi::Float64Array>().Data();
  addon.makeCurrent(env, graph->context());
  cu::DevicePtr workspace = 0;
  size_t bytes = 0;
  if (nodes.size() == 3) {
    cu::MemAllocNodeParams p{};
    addon.check(env, cu::call(d.cuGraphMemAllocNodeGetParams, nodes[0], &p), "cuGraphMemAllocNodeGetParams");
    workspace = p.dptr;
    bytes = p.bytesize;
  }
  cu::Graph child = nullptr;
  if (int status = capture(env, library, block, workspace, bytes, &child); status != 0)
    return Napi::Number::New(env, status);
  cu::Result set = cu::call(d.cuGraphExecChildGraphNodeSetParams, exec->exec(), nodes[nodes.size() == 3 ? 1 : 0], child);
  cu::call(d.cuGraphDestroy, child);
  addon.check(env, set, "cuGraphExecChildGraphNodeSetParams");
  return Napi::Number::New(env, 0);
}

}  // namespace

void defineLibraryGraph(Napi::Env env, Napi::Object exports) {
  exports["addLibraryNode"] = Napi::Function::New(env, addLibraryNode, "addLibraryNode");
  exports["setLibraryNode"] = Napi::Function::New(env, setLibraryNode, "setLibraryNode");
}

}  // namespace rxcuda
