// kernels/: what a launch is made of below Module, Kernel and Template (core/api/): a kernel's
// engine (the launch fast path) and the engines of pre-launch hooks and specializations, signatures,
// the launch block and its packer, launch configurations, the current launch, CPU kernels for
// the host device, and a module's engine. Imports the folders below it up to compiler/.
export type { Signature, ParamType, StructParam, TypedPointer, BlockSizeSuggestion, CompiledSpecialization } from './kernel-types.js';
export type { CpuKernel, CpuArgs, CpuArgOf } from './cpu-kernel.js';
export { LaunchConfig, type LaunchOptions, type Dim3 } from './launch-config.js';
