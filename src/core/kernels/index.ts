// kernels/: modules, kernels with declared signatures and their launch blocks, launch
// configurations, contexts and hooks, specializations and templates, and CPU kernels for the host
// device. It adds compile, loadModule, template and launch to Device and Stream
// (device-members.ts). Imports the folders below it up to compiler/.
import './device-members.js';

export { Module, type ModuleImage } from './module.js';
export { Kernel } from './kernel.js';
export type { Signature, ParamType, StructParam, KernelArgs, ArgOf, TypedPointer, BlockSizeSuggestion, CompiledSpecialization } from './kernel-types.js';
export type { CpuKernel, CpuArgs, CpuArgOf } from './cpu-kernel.js';
export { LaunchConfig, type LaunchOptions, type Dim3 } from './launch-config.js';
export { LaunchContext, NoCurrentLaunchError, currentLaunch } from './launch-context.js';
export { LaunchHookError, onLaunch, type Disposer, type LaunchHook, type LaunchOverride } from './launch-hooks.js';
export type { Specializer } from './specialization.js';
export { Template, type TemplateKernelOptions } from './template.js';

