// The process-wide CUDA driver table: libcuda.so.1 opened at first use, every entry point resolved
// through cuGetProcAddress at an explicit CUDA version. Nothing links against libcuda.
#pragma once
#include <string>

#include "types.hpp"

namespace rxcuda::cu {

// X(name, cuda version the ABI is requested at, parameter list). An entry point the driver lacks
// stays null and calling it through call() reports CUDA_ERROR_NOT_FOUND.
#define RXCUDA_DRIVER_ENTRY_POINTS(X)                                                              \
  X(cuInit, 2000, (unsigned flags))                                                                \
  X(cuGetErrorName, 6000, (Result error, const char** str))                                        \
  X(cuGetErrorString, 6000, (Result error, const char** str))                                      \
  X(cuDeviceGetCount, 2000, (int* count))                                                          \
  X(cuDeviceGet, 2000, (Device * device, int ordinal))                                             \
  X(cuDeviceGetName, 2000, (char* name, int len, Device dev))                                      \
  X(cuDeviceGetAttribute, 2000, (int* value, int attrib, Device dev))                              \
  X(cuDeviceTotalMem, 3020, (size_t * bytes, Device dev))                                          \
  X(cuDevicePrimaryCtxRetain, 7000, (Context * ctx, Device dev))                                   \
  X(cuDevicePrimaryCtxRelease, 11000, (Device dev))                                                \
  X(cuCtxSetCurrent, 4000, (Context ctx))                                                          \
  X(cuDeviceCanAccessPeer, 4000, (int* canAccess, Device dev, Device peerDev))                     \
  X(cuCtxEnablePeerAccess, 4000, (Context peerContext, unsigned flags))                            \
  X(cuDeviceGetDefaultMemPool, 11020, (MemoryPool * pool, Device dev))                             \
  X(cuMemPoolSetAccess, 11020, (MemoryPool pool, const MemAccessDesc* map, size_t count))          \
  X(cuMemGetInfo, 3020, (size_t * free, size_t * total))                                           \
  X(cuStreamCreateWithPriority, 5050, (Stream * stream, unsigned flags, int priority))             \
  X(cuStreamDestroy, 4000, (Stream stream))                                                        \
  X(cuStreamQuery, 2000, (Stream stream))                                                          \
  X(cuStreamWaitEvent, 3020, (Stream stream, Event event, unsigned flags))                         \
  X(cuStreamGetPriority, 5050, (Stream stream, int* priority))                                     \
  X(cuStreamGetFlags, 5050, (Stream stream, unsigned* flags))                                      \
  X(cuStreamGetCtx, 9020, (Stream stream, Context * ctx))                                          \
  X(cuStreamIsCapturing, 10000, (Stream stream, StreamCaptureStatus * status))                     \
  X(cuStreamBeginCapture, 10010, (Stream stream, StreamCaptureMode mode))                          \
  X(cuStreamEndCapture, 10000, (Stream stream, Graph * graph))                                     \
  X(cuGraphDestroy, 10000, (Graph graph))                                                          \
  X(cuGraphCreate, 10000, (Graph * graph, unsigned flags))                                         \
  X(cuGraphAddKernelNode, 12000,                                                                   \
    (GraphNode * node, Graph graph, const GraphNode* deps, size_t n, const KernelNodeParams* p))   \
  X(cuGraphKernelNodeSetAttribute, 11000, (GraphNode node, int attr, const LaunchAttributeValue* v)) \
  X(cuGraphAddMemcpyNode, 10000,                                                                   \
    (GraphNode * node, Graph graph, const GraphNode* deps, size_t n, const Memcpy3D* p, Context c)) \
  X(cuGraphAddMemsetNode, 10000,                                                                   \
    (GraphNode * node, Graph graph, const GraphNode* deps, size_t n, const MemsetNodeParams* p,    \
     Context c))                                                                                   \
  X(cuGraphAddHostNode, 10000,                                                                     \
    (GraphNode * node, Graph graph, const GraphNode* deps, size_t n, const HostNodeParams* p))     \
  X(cuGraphAddEmptyNode, 10000, (GraphNode * node, Graph graph, const GraphNode* deps, size_t n))  \
  X(cuGraphAddEventRecordNode, 11010,                                                              \
    (GraphNode * node, Graph graph, const GraphNode* deps, size_t n, Event event))                 \
  X(cuGraphAddEventWaitNode, 11010,                                                                \
    (GraphNode * node, Graph graph, const GraphNode* deps, size_t n, Event event))                 \
  X(cuGraphInstantiateWithFlags, 11040, (GraphExec * exec, Graph graph, unsigned long long flags)) \
  X(cuGraphLaunch, 10000, (GraphExec exec, Stream stream))                                         \
  X(cuGraphExecDestroy, 10000, (GraphExec exec))                                                   \
  X(cuGraphExecKernelNodeSetParams, 12000, (GraphExec exec, GraphNode node, const KernelNodeParams* p)) \
  X(cuGraphExecMemcpyNodeSetParams, 10020,                                                         \
    (GraphExec exec, GraphNode node, const Memcpy3D* p, Context c))                                \
  X(cuGraphExecMemsetNodeSetParams, 10020,                                                         \
    (GraphExec exec, GraphNode node, const MemsetNodeParams* p, Context c))                        \
  X(cuGraphAddChildGraphNode, 10000,                                                               \
    (GraphNode * node, Graph graph, const GraphNode* deps, size_t n, Graph child))                 \
  X(cuGraphExecChildGraphNodeSetParams, 11010, (GraphExec exec, GraphNode node, Graph child))      \
  X(cuGraphConditionalHandleCreate, 12030,                                                         \
    (GraphConditionalHandle * handle, Graph graph, Context ctx, unsigned defaultValue,             \
     unsigned flags))                                                                              \
  X(cuGraphAddNode, 12020,                                                                         \
    (GraphNode * node, Graph graph, const GraphNode* deps, size_t n, GraphNodeParams* params))     \
  X(cuGraphAddMemAllocNode, 11040,                                                                 \
    (GraphNode * node, Graph graph, const GraphNode* deps, size_t n, MemAllocNodeParams* p))       \
  X(cuGraphAddMemFreeNode, 11040,                                                                  \
    (GraphNode * node, Graph graph, const GraphNode* deps, size_t n, DevicePtr ptr))               \
  X(cuGraphMemAllocNodeGetParams, 11040, (GraphNode node, MemAllocNodeParams* p))                  \
  X(cuStreamAddCallback, 5000, (Stream stream, StreamCallback cb, void* userData, unsigned flags)) \
  X(cuLaunchHostFunc, 10000, (Stream stream, HostFn fn, void* userData))                           \
  X(cuStreamWriteValue32, 11070, (Stream stream, DevicePtr addr, uint32_t value, unsigned flags))  \
  X(cuEventCreate, 2000, (Event * event, unsigned flags))                                          \
  X(cuEventRecord, 2000, (Event event, Stream stream))                                             \
  X(cuEventQuery, 2000, (Event event))                                                             \
  X(cuEventElapsedTime, 2000, (float* ms, Event start, Event end))                                 \
  X(cuEventDestroy, 4000, (Event event))                                                           \
  X(cuMemAllocAsync, 11020, (DevicePtr * ptr, size_t bytes, Stream stream))                        \
  X(cuMemFreeAsync, 11020, (DevicePtr ptr, Stream stream))                                         \
  X(cuMemHostAlloc, 3020, (void** ptr, size_t bytes, unsigned flags))                              \
  X(cuMemFreeHost, 2000, (void* ptr))                                                              \
  X(cuMemHostRegister, 6050, (void* ptr, size_t bytes, unsigned flags))                            \
  X(cuMemHostUnregister, 4000, (void* ptr))                                                        \
  X(cuMemcpyAsync, 4000, (DevicePtr dst, DevicePtr src, size_t bytes, Stream stream))              \
  X(cuMemcpyPeerAsync, 4000,                                                                       \
    (DevicePtr dst, Context dstCtx, DevicePtr src, Context srcCtx, size_t bytes, Stream stream))   \
  X(cuMemsetD8Async, 3020, (DevicePtr dst, unsigned char value, size_t n, Stream stream))          \
  X(cuMemsetD16Async, 3020, (DevicePtr dst, unsigned short value, size_t n, Stream stream))        \
  X(cuMemsetD32Async, 3020, (DevicePtr dst, unsigned value, size_t n, Stream stream))              \
  X(cuMemsetD2D32Async, 3020,                                                                      \
    (DevicePtr dst, size_t pitch, unsigned value, size_t width, size_t height, Stream stream))     \
  X(cuLinkCreate, 6050, (unsigned numOptions, int* options, void** optionValues, LinkState* state)) \
  X(cuLinkAddData, 6050,                                                                           \
    (LinkState state, int type, void* data, size_t size, const char* name, unsigned numOptions,    \
     int* options, void** optionValues))                                                           \
  X(cuLinkAddFile, 6050,                                                                           \
    (LinkState state, int type, const char* path, unsigned numOptions, int* options,               \
     void** optionValues))                                                                         \
  X(cuLinkComplete, 6050, (LinkState state, void** cubinOut, size_t* sizeOut))                     \
  X(cuLinkDestroy, 6050, (LinkState state))                                                        \
  X(cuModuleLoadData, 2000, (Module * module, const void* image))                                  \
  X(cuModuleUnload, 2000, (Module module))                                                         \
  X(cuModuleGetFunction, 2000, (Function * fn, Module module, const char* name))                   \
  X(cuFuncGetAttribute, 2020, (int* value, int attrib, Function fn))                               \
  X(cuFuncSetAttribute, 9000, (Function fn, int attrib, int value))                                \
  X(cuFuncGetParamInfo, 12040, (Function fn, size_t index, size_t* offset, size_t* size))          \
  X(cuLaunchKernelEx, 11080, (const LaunchConfig* config, Function fn, void** params, void** extra)) \
  X(cuOccupancyMaxPotentialBlockSize, 6050,                                                        \
    (int* minGrid, int* block, Function fn, void* sizeFn, size_t sharedMem, int blockLimit))       \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050,                                             \
    (int* blocks, Function fn, int blockSize, size_t sharedMem))

struct Driver {
#define RXCUDA_DECLARE_ENTRY(name, version, params) Result(*name) params = nullptr;
  RXCUDA_DRIVER_ENTRY_POINTS(RXCUDA_DECLARE_ENTRY)
#undef RXCUDA_DECLARE_ENTRY
  int version = 0;        // cuDriverGetVersion, 0 when no driver was found
  std::string problem;    // why the driver cannot be used; empty when it can
  Result unavailable = kSuccess;  // the CUresult that stands for `problem`
};

// Opens the driver once per process and initialises it; later calls return the same table.
const Driver& driver();

// The entry point `name` at the ABI of CUDA `version`, or null: for tables of entry points beside
// the addon's own (baseline-driver.hpp).
void* resolveEntryPoint(const char* name, int version);

// Oldest driver rxcuda accepts (cuGetProcAddress with version and query result).
constexpr int kMinDriverVersion = 12000;

// Calls an entry point, reporting a missing one as CUDA_ERROR_NOT_FOUND instead of crashing.
template <typename Fn, typename... Args>
Result call(Fn fn, Args... args) {
  return fn ? fn(args...) : kErrorNotFound;
}

// "CUDA_ERROR_..." for a result code, falling back to the number when the driver cannot say.
std::string errorName(Result r);
std::string errorString(Result r);

}  // namespace rxcuda::cu
