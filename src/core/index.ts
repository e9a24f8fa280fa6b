// The object model over the addon: devices, streams, events, memory, kernels and graphs. What
// rxcuda exports of src/core, and nothing more: the reactive layer builds on these alone.
export { Device } from './device/device.js';
export type { DeviceProperties, DriverInfo, KernelAttributes } from './native/addon.js';
export { Stream, type StreamOptions, type StreamEvents } from './device/stream.js';
export { STEP_FAILED_WARNING, type HostLaunchOptions, type HostStepContext, type UserData } from './queue/host-steps.js';
export { Event, type EventOptions } from './device/event.js';
export { Memory, DeviceArray, HostArray } from './memory/memory.js';
export { LentArray } from './memory/lent-array.js';
export { MAX_SPIN_US } from './device/spin-wait.js';
export { MAIN_THREAD_COPY_BYTES, copyThreads, type CopyRoad } from './memory/host-copy.js';
export { DTYPES, isDType, toHalfBits, fromHalfBits, toBFloat16Bits, fromBFloat16Bits, type DType, type TypedArrayOf, type DTypeOfArray } from './base/dtype.js';
export { Module, type ModuleImage } from './kernels/module.js';
export { compile, type CompileOptions, type CompiledProgram } from './kernels/program.js';
export { Kernel, type Signature, type ParamType, type StructParam, type KernelArgs, type ArgOf } from './kernels/kernel.js';
export type { CpuKernel, CpuArgs, CpuArgOf } from './kernels/cpu-kernel.js';
export type { TypedPointer } from './kernels/pointer.js';
export { LaunchConfig, type LaunchOptions, type Dim3 } from './kernels/launch-config.js';
export { LaunchContext, NoCurrentLaunchError, currentLaunch, type Defines } from './kernels/launch-context.js';
export { LaunchHookError, onLaunch, type Disposer, type LaunchHook, type LaunchOverride } from './kernels/launch-hooks.js';
export type { Specializer } from './kernels/specialization.js';
export { Template, type TemplateKernelOptions } from './kernels/template.js';
export { RxcudaError, CudaError, NvrtcError, HostStepTimeoutError, GraphError, type GraphErrorReason } from './base/errors.js';
export { Graph, type NodeOptions } from './graphs/graph.js';
export { GraphExec } from './graphs/graph-exec.js';
export { GraphNode, type GraphNodeKind } from './graphs/graph-node.js';
export { Builtins, type BuiltinDType } from './kernels/builtins.js';
export * from './libraries/index.js';
