// rxcuda: reactive stream scheduling for NVIDIA GPUs from Node.js.
export { Device } from './core/device.js';
export type { DeviceProperties, DriverInfo, KernelAttributes } from './core/native.js';
export { Stream, type StreamOptions, type StreamEvents } from './core/stream.js';
export { STEP_FAILED_WARNING, type HostLaunchOptions, type HostStepContext, type UserData } from './core/host-steps.js';
export { Event, type EventOptions } from './core/event.js';
export { Memory, DeviceArray, HostArray } from './core/memory.js';
export { DTYPES, isDType, toHalfBits, fromHalfBits, type DType, type TypedArrayOf } from './core/dtype.js';
export { Module, type ModuleImage } from './core/module.js';
export { compile, type CompileOptions, type CompiledProgram } from './core/program.js';
export { Kernel, type Signature, type ParamType, type StructParam, type KernelArgs, type ArgOf } from './core/kernel.js';
export type { CpuKernel, CpuArgs, CpuArgOf } from './core/cpu-kernel.js';
export type { TypedPointer } from './core/pointer.js';
export { LaunchConfig, type LaunchOptions, type Dim3 } from './core/launch-config.js';
export { RxcudaError, CudaError, NvrtcError, HostStepTimeoutError } from './core/errors.js';
export { Builtins, type BuiltinDType } from './core/builtins.js';
export * from './operators/index.js';
