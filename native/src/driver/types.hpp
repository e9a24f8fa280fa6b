// The CUDA driver types rxcuda uses, declared here so the addon builds without the toolkit.
// check.cpp compares them with cuda.h wherever the toolkit is present at build time.
#pragma once
#include <cstddef>
#include <cstdint>

namespace rxcuda::cu {

using Result = int;
using Device = int;
using DevicePtr = unsigned long long;
using Context = struct CtxSt*;
using Stream = struct StreamSt*;
using Event = struct EventSt*;
using Module = struct ModSt*;
using Function = struct FuncSt*;
using Graph = struct GraphSt*;
using MemoryPool = struct MemPoolSt*;
using GraphNode = struct GraphNodeSt*;
using GraphExec = struct GraphExecSt*;
using LinkState = struct LinkStateSt*;
using GraphConditionalHandle = unsigned long long;
using HostFn = void (*)(void* userData);
using StreamCallback = void (*)(Stream stream, Result status, void* userData);

constexpr Result kSuccess = 0;
constexpr Result kErrorInvalidValue = 1;
constexpr Result kErrorOutOfMemory = 2;
constexpr Result kErrorNotInitialized = 3;
constexpr Result kErrorNotSupported = 801;
constexpr Result kErrorNoDevice = 100;
constexpr Result kErrorNotFound = 500;
constexpr Result kErrorNotReady = 600;
constexpr Result kErrorPeerAccessAlreadyEnabled = 704;

// Errors after which the context can no longer be used (the "sticky" errors).
constexpr bool isSticky(Result r) {
  return r == 700 /* ILLEGAL_ADDRESS */ || r == 714 /* HARDWARE_STACK_ERROR */ ||
         r == 715 /* ILLEGAL_INSTRUCTION */ || r == 716 /* MISALIGNED_ADDRESS */ ||
         r == 717 /* INVALID_ADDRESS_SPACE */ || r == 718 /* INVALID_PC */ ||
         r == 719 /* LAUNCH_FAILED */ || r == 720 /* COOPERATIVE_LAUNCH_TOO_LARGE */;
}

enum DeviceAttribute : int {
  kAttrMaxThreadsPerBlock = 1,
  kAttrMaxBlockDimX = 2,
  kAttrMaxBlockDimY = 3,
  kAttrMaxBlockDimZ = 4,
  kAttrMaxGridDimX = 5,
  kAttrMaxGridDimY = 6,
  kAttrMaxGridDimZ = 7,
  kAttrMaxSharedMemoryPerBlock = 8,
  kAttrWarpSize = 10,
  kAttrClockRate = 13,
  kAttrMultiprocessorCount = 16,
  kAttrComputeCapabilityMajor = 75,
  kAttrComputeCapabilityMinor = 76,
  kAttrMaxSharedMemoryPerBlockOptin = 97,
  kAttrCooperativeLaunch = 95,
  kAttrMemoryPoolsSupported = 115,
  kAttrClusterLaunch = 120,
};

enum FunctionAttribute : int {
  kFuncMaxThreadsPerBlock = 0,
  kFuncSharedSizeBytes = 1,
  kFuncConstSizeBytes = 2,
  kFuncLocalSizeBytes = 3,
  kFuncNumRegs = 4,
  kFuncPtxVersion = 5,
  kFuncBinaryVersion = 6,
  kFuncMaxDynamicSharedSizeBytes = 8,
};

constexpr unsigned kStreamNonBlocking = 0x1;
constexpr unsigned kEventBlockingSync = 0x1;
constexpr unsigned kEventDisableTiming = 0x2;
constexpr unsigned kMemHostAllocPortable = 0x1;
constexpr unsigned kMemHostRegisterPortable = 0x1;

enum LaunchAttributeId : int {
  kLaunchAttrCooperative = 2,
  kLaunchAttrClusterDimension = 4,
};

union LaunchAttributeValue {
  char pad[64];
  int cooperative;
  struct {
    unsigned x, y, z;
  } clusterDim;
};

struct LaunchAttribute {
  LaunchAttributeId id;
  char pad[8 - sizeof(LaunchAttributeId)];
  LaunchAttributeValue value;
};

struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  Stream hStream;
  LaunchAttribute* attrs;
  unsigned numAttrs;
};

// A stream-ordered pool's access by another device (cuMemPoolSetAccess).
enum MemLocationType : int { kMemLocationTypeDevice = 1 };
enum MemAccessFlags : int { kMemAccessFlagsProtReadWrite = 3 };
struct MemLocation {
  MemLocationType type;
  int id;
};
struct MemAccessDesc {
  MemLocation location;
  MemAccessFlags flags;
};

// Graph nodes' parameters (CUDA_KERNEL_NODE_PARAMS_v2, CUDA_MEMCPY3D, CUDA_MEMSET_NODE_PARAMS,
// CUDA_HOST_NODE_PARAMS).
struct KernelNodeParams {
  Function func;
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void** kernelParams;
  void** extra;
  void* kern;
  Context ctx;
};

enum MemoryType : int { kMemoryTypeUnified = 4 };

struct Memcpy3D {
  size_t srcXInBytes, srcY, srcZ, srcLOD;
  MemoryType srcMemoryType;
  const void* srcHost;
  DevicePtr srcDevice;
  void* srcArray;
  void* reserved0;
  size_t srcPitch, srcHeight;
  size_t dstXInBytes, dstY, dstZ, dstLOD;
  MemoryType dstMemoryType;
  void* dstHost;
  DevicePtr dstDevice;
  void* dstArray;
  void* reserved1;
  size_t dstPitch, dstHeight;
  size_t WidthInBytes, Height, Depth;
};

struct MemsetNodeParams {
  DevicePtr dst;
  size_t pitch;
  unsigned value;
  unsigned elementSize;
  size_t width, height;
};

struct HostNodeParams {
  HostFn fn;
  void* userData;
};

// A graph's own allocation (CUmemPoolProps, CUDA_MEM_ALLOC_NODE_PARAMS): workspaces of library
// calls captured into graphs live from their allocation node to their free node.
enum MemAllocationType : int { kMemAllocationTypePinned = 1 };
struct MemPoolProps {
  MemAllocationType allocType;
  int handleTypes;
  MemLocation location;
  void* win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};
struct MemAllocNodeParams {
  MemPoolProps poolProps;
  const MemAccessDesc* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  DevicePtr dptr;
};

// Any node's parameters for cuGraphAddNode (CUgraphNodeParams); rxcuda fills in conditional nodes
// only (CUDA_CONDITIONAL_NODE_PARAMS), whose body graphs the driver creates and owns.
enum GraphNodeType : int { kGraphNodeTypeConditional = 13 };
enum GraphConditionalNodeType : int {
  kGraphCondTypeIf = 0,
  kGraphCondTypeWhile = 1,
  kGraphCondTypeSwitch = 2,
};
constexpr unsigned kGraphCondAssignDefault = 0x1;
struct ConditionalNodeParams {
  GraphConditionalHandle handle;
  GraphConditionalNodeType type;
  unsigned size;
  Graph* phGraph_out;  // the driver's array of `size` body graphs, valid while the node lives
  Context ctx;
};
struct GraphNodeParams {
  GraphNodeType type;
  int reserved0[3];
  union {
    long long reserved1[29];
    ConditionalNodeParams conditional;
  };
  long long reserved2;
};

enum StreamCaptureStatus : int { kCaptureNone = 0, kCaptureActive = 1, kCaptureInvalidated = 2 };
enum StreamCaptureMode : int { kCaptureModeGlobal = 0, kCaptureModeRelaxed = 2 };

constexpr unsigned kStreamWaitValueGeq = 0x0;

// The linker's inputs and options (CUjitInputType, CUjit_option).
enum JitInputType : int { kJitInputCubin = 0, kJitInputPtx = 1, kJitInputLibrary = 4 };
enum JitOption : int { kJitErrorLogBuffer = 5, kJitErrorLogBufferSizeBytes = 6 };

enum ProcAddressQueryResult : int { kProcFound = 0, kProcSymbolNotFound = 1, kProcVersionTooLow = 2 };

}  // namespace rxcuda::cu
