// Facts the driver reports about devices, kernels and itself: the public shapes of what the
// addon returns.

/**
 * Facts about a CUDA device, read once. A host device reports the launch limits of a compute
 * capability 9.0 GPU, so that launch configurations are checked the same way on the CPU.
 */
export interface DeviceProperties {
  /** The device's name, e.g. "NVIDIA H200"; "host (CPU reference backend)" for a host device. */
  readonly name: string;
  /** Total device memory in bytes; for a host device, the machine's total RAM in bytes. */
  readonly totalMemory: number;
  /** Major version of the compute capability, e.g. 9 for sm_90; 0 for a host device. */
  readonly major: number;
  /** Minor version of the compute capability, e.g. 0 for sm_90; 0 for a host device. */
  readonly minor: number;
  /** Number of streaming multiprocessors; for a host device, the number of CPU threads. */
  readonly multiprocessors: number;
  /** Most threads one block may have (1024 for a host device). */
  readonly maxThreadsPerBlock: number;
  /** Largest block size in x, in threads (1024 for a host device). */
  readonly maxBlockX: number;
  /** Largest block size in y, in threads (1024 for a host device). */
  readonly maxBlockY: number;
  /** Largest block size in z, in threads (64 for a host device). */
  readonly maxBlockZ: number;
  /** Largest grid size in x, in blocks (2147483647 for a host device). */
  readonly maxGridX: number;
  /** Largest grid size in y, in blocks (65535 for a host device). */
  readonly maxGridY: number;
  /** Largest grid size in z, in blocks (65535 for a host device). */
  readonly maxGridZ: number;
  /** Shared memory one block may use without opting in, in bytes (49152 for a host device). */
  readonly sharedMemoryPerBlock: number;
  /**
   * Shared memory one block may use when its kernel opts in
   * ({@link Kernel.setMaxDynamicSharedMemory}), in bytes; the limit on a launch's `sharedMem`
   * (232448 for a host device).
   */
  readonly sharedMemoryPerBlockOptin: number;
  /** Threads per warp (32). */
  readonly warpSize: number;
  /**
   * 1 if the device supports cooperative launches, else 0
   * (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH); 0 for a host device.
   */
  readonly cooperativeLaunch: number;
  /**
   * 1 if the device supports launches with thread block clusters, else 0
   * (CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH); 0 for a host device.
   */
  readonly clusterLaunch: number;
  /**
   * 1 if the device supports stream-ordered allocation from memory pools (cuMemAllocAsync), else 0
   * (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED); 1 for a host device.
   */
  readonly memoryPools: number;
}

/**
 * A compiled kernel's attributes, as cuFuncGetAttribute reports them. A CPU kernel on a host
 * device reports 1024 for `maxThreadsPerBlock`, its dynamic shared memory limit, and 0 for the
 * rest.
 */
export interface KernelAttributes {
  /**
   * Most threads per block a launch of this kernel may have on its device
   * (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK).
   */
  readonly maxThreadsPerBlock: number;
  /**
   * Statically allocated shared memory per block, in bytes; dynamic shared memory not included
   * (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES).
   */
  readonly sharedSizeBytes: number;
  /** Constant memory the kernel uses, in bytes (CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES). */
  readonly constSizeBytes: number;
  /** Local memory per thread, in bytes (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES). */
  readonly localSizeBytes: number;
  /** Registers per thread (CU_FUNC_ATTRIBUTE_NUM_REGS). */
  readonly numRegs: number;
  /**
   * PTX virtual architecture the kernel was compiled for, as major * 10 + minor, e.g. 90
   * (CU_FUNC_ATTRIBUTE_PTX_VERSION).
   */
  readonly ptxVersion: number;
  /**
   * Binary architecture the kernel was compiled for, as major * 10 + minor, e.g. 90
   * (CU_FUNC_ATTRIBUTE_BINARY_VERSION).
   */
  readonly binaryVersion: number;
  /**
   * Most dynamic shared memory a launch of this kernel may ask for, in bytes
   * (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES); on a GPU, raised by
   * {@link Kernel.setMaxDynamicSharedMemory}; on the host device, what it was set to (0 before).
   */
  readonly maxDynamicSharedSizeBytes: number;
}

/** The state of the CUDA driver and of NVRTC, as {@link Device.driverInfo} reports it. */
export interface DriverInfo {
  /** Whether the CUDA driver was loaded and initialised (cuInit) and can be used. */
  available: boolean;
  /**
   * The CUDA version the driver supports, as 1000 * major + 10 * minor (12040 for 12.4); 0
   * when no driver was found or it did not report its version.
   */
  version: number;
  /** Why the driver cannot be used, in words; empty when it can. */
  problem: string;
  /** The CUresult that stands for `problem` (0 when the driver can be used). */
  code: number;
  /** The name of `code`, e.g. "CUDA_ERROR_NO_DEVICE"; empty when the driver can be used. */
  codeName: string;
  /** Number of CUDA devices the driver sees (cuDeviceGetCount); 0 when the driver cannot be used. */
  deviceCount: number;
  /** NVRTC, the runtime compiler that compiles kernels from CUDA C++ source. */
  nvrtc: {
    /** Whether NVRTC was found and has every entry point rxcuda uses. */
    available: boolean;
    /** NVRTC's version, as "major.minor" (e.g. "12.4"); empty when it is not available. */
    version: string;
    /** The file NVRTC was loaded from; empty when it was not found. */
    path: string;
    /** Why NVRTC cannot be used, in words; empty when it can. */
    problem: string;
  };
}
