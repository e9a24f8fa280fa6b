// Where the CUDA toolkit's cuda.h is present at build time, prove that types.hpp declares the
// driver ABI exactly as cuda.h does. Without the toolkit this file compiles to nothing.
#if __has_include(<cuda.h>)
#include <cuda.h>

#include <cstddef>

#include "types.hpp"

namespace c = rxcuda::cu;

static_assert(sizeof(c::Result) == sizeof(CUresult));
static_assert(sizeof(c::Device) == sizeof(CUdevice));
static_assert(sizeof(c::DevicePtr) == sizeof(CUdeviceptr));
static_assert(c::kSuccess == CUDA_SUCCESS && c::kErrorNotFound == CUDA_ERROR_NOT_FOUND);
static_assert(c::kErrorOutOfMemory == CUDA_ERROR_OUT_OF_MEMORY);
static_assert(c::kErrorNotSupported == CUDA_ERROR_NOT_SUPPORTED);
static_assert(c::kErrorNotReady == CUDA_ERROR_NOT_READY && c::kErrorNoDevice == CUDA_ERROR_NO_DEVICE);
static_assert(c::isSticky(CUDA_ERROR_ILLEGAL_ADDRESS) && c::isSticky(CUDA_ERROR_LAUNCH_FAILED));
static_assert(c::kAttrMultiprocessorCount == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(c::kAttrComputeCapabilityMajor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(c::kAttrComputeCapabilityMinor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(c::kAttrMaxThreadsPerBlock == CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(c::kAttrMaxBlockDimX == CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
static_assert(c::kAttrMaxGridDimZ == CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
static_assert(c::kAttrMaxSharedMemoryPerBlock == CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
static_assert(c::kAttrMaxSharedMemoryPerBlockOptin ==
              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
static_assert(c::kAttrWarpSize == CU_DEVICE_ATTRIBUTE_WARP_SIZE);
static_assert(c::kAttrClockRate == CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
static_assert(c::kAttrCooperativeLaunch == CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
static_assert(c::kAttrMemoryPoolsSupported == CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
static_assert(c::kAttrClusterLaunch == CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
static_assert(c::kFuncMaxThreadsPerBlock == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(c::kFuncSharedSizeBytes == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
static_assert(c::kFuncConstSizeBytes == CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
static_assert(c::kFuncLocalSizeBytes == CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
static_assert(c::kFuncNumRegs == CU_FUNC_ATTRIBUTE_NUM_REGS);
static_assert(c::kFuncPtxVersion == CU_FUNC_ATTRIBUTE_PTX_VERSION);
static_assert(c::kFuncBinaryVersion == CU_FUNC_ATTRIBUTE_BINARY_VERSION);
static_assert(c::kFuncMaxDynamicSharedSizeBytes == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(c::kErrorPeerAccessAlreadyEnabled == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
static_assert(c::kMemLocationTypeDevice == CU_MEM_LOCATION_TYPE_DEVICE);
static_assert(c::kMemAccessFlagsProtReadWrite == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
static_assert(sizeof(c::MemAccessDesc) == sizeof(CUmemAccessDesc));
static_assert(offsetof(c::MemAccessDesc, flags) == offsetof(CUmemAccessDesc, flags));
static_assert(offsetof(c::MemLocation, id) == offsetof(CUmemLocation, id));
static_assert(c::kStreamNonBlocking == CU_STREAM_NON_BLOCKING);
static_assert(c::kEventBlockingSync == CU_EVENT_BLOCKING_SYNC);
static_assert(c::kEventDisableTiming == CU_EVENT_DISABLE_TIMING);
static_assert(c::kMemHostAllocPortable == CU_MEMHOSTALLOC_PORTABLE);
static_assert(c::kMemHostRegisterPortable == CU_MEMHOSTREGISTER_PORTABLE);
static_assert(c::kLaunchAttrCooperative == CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
static_assert(c::kLaunchAttrClusterDimension == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
static_assert(c::kCaptureActive == CU_STREAM_CAPTURE_STATUS_ACTIVE);
static_assert(c::kCaptureModeRelaxed == CU_STREAM_CAPTURE_MODE_RELAXED);
static_assert(c::kStreamWaitValueGeq == CU_STREAM_WAIT_VALUE_GEQ);
static_assert(c::kProcFound == CU_GET_PROC_ADDRESS_SUCCESS);
static_assert(sizeof(c::LaunchAttribute) == sizeof(CUlaunchAttribute));
static_assert(offsetof(c::LaunchAttribute, value) == offsetof(CUlaunchAttribute, value));
static_assert(sizeof(c::LaunchAttributeValue) == sizeof(CUlaunchAttributeValue));
static_assert(sizeof(c::LaunchConfig) == sizeof(CUlaunchConfig));
static_assert(offsetof(c::LaunchConfig, sharedMemBytes) == offsetof(CUlaunchConfig, sharedMemBytes));
static_assert(offsetof(c::LaunchConfig, hStream) == offsetof(CUlaunchConfig, hStream));
static_assert(offsetof(c::LaunchConfig, attrs) == offsetof(CUlaunchConfig, attrs));
static_assert(offsetof(c::LaunchConfig, numAttrs) == offsetof(CUlaunchConfig, numAttrs));
static_assert(sizeof(c::KernelNodeParams) == sizeof(CUDA_KERNEL_NODE_PARAMS_v2));
static_assert(offsetof(c::KernelNodeParams, kernelParams) == offsetof(CUDA_KERNEL_NODE_PARAMS_v2, kernelParams));
static_assert(offsetof(c::KernelNodeParams, ctx) == offsetof(CUDA_KERNEL_NODE_PARAMS_v2, ctx));
static_assert(sizeof(c::Memcpy3D) == sizeof(CUDA_MEMCPY3D_v2));
static_assert(offsetof(c::Memcpy3D, srcDevice) == offsetof(CUDA_MEMCPY3D_v2, srcDevice));
static_assert(offsetof(c::Memcpy3D, dstDevice) == offsetof(CUDA_MEMCPY3D_v2, dstDevice));
static_assert(offsetof(c::Memcpy3D, WidthInBytes) == offsetof(CUDA_MEMCPY3D_v2, WidthInBytes));
static_assert(c::kMemoryTypeUnified == CU_MEMORYTYPE_UNIFIED);
static_assert(sizeof(c::MemsetNodeParams) == sizeof(CUDA_MEMSET_NODE_PARAMS_v1));
static_assert(offsetof(c::MemsetNodeParams, height) == offsetof(CUDA_MEMSET_NODE_PARAMS_v1, height));
static_assert(sizeof(c::HostNodeParams) == sizeof(CUDA_HOST_NODE_PARAMS_v1));
static_assert(sizeof(c::LaunchAttributeValue) == sizeof(CUkernelNodeAttrValue));

static_assert(c::kMemAllocationTypePinned == CU_MEM_ALLOCATION_TYPE_PINNED);
static_assert(sizeof(c::MemPoolProps) == sizeof(CUmemPoolProps));
static_assert(offsetof(c::MemPoolProps, location) == offsetof(CUmemPoolProps, location));
static_assert(offsetof(c::MemPoolProps, maxSize) == offsetof(CUmemPoolProps, maxSize));
static_assert(sizeof(c::MemAllocNodeParams) == sizeof(CUDA_MEM_ALLOC_NODE_PARAMS_v1));
static_assert(offsetof(c::MemAllocNodeParams, bytesize) == offsetof(CUDA_MEM_ALLOC_NODE_PARAMS_v1, bytesize));
static_assert(offsetof(c::MemAllocNodeParams, dptr) == offsetof(CUDA_MEM_ALLOC_NODE_PARAMS_v1, dptr));

#endif
