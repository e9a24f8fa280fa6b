// The object model over the addon: devices, streams, events, memory, kernels and graphs. What
// rxcuda exports of src/core: the engines' folders lowest first, then the public classes
// (api/), each a file that reads as the class's whole surface; the reactive layer builds on these.
export * from './base/index.js';
export * from './native/index.js';
export * from './memory/index.js';
export * from './queue/index.js';
export * from './device/index.js';
export * from './compiler/index.js';
export * from './kernels/index.js';
export * from './graphs/index.js';
export * from './libraries/index.js';

export { Device } from './api/device.js';
export { Stream } from './api/stream.js';
export { Memory, DeviceArray, HostArray } from './api/memory.js';
export { Event, type EventOptions } from './api/event.js';
export { Module, type ModuleImage } from './api/module.js';
export { Kernel, type ArgOf, type KernelArgs } from './api/kernel.js';
export { Template, type Specializer, type TemplateKernelOptions } from './api/template.js';
export { LaunchContext, NoCurrentLaunchError, currentLaunch } from './api/launch-context.js';
export { LaunchHookError, onLaunch, type Disposer, type LaunchHook, type LaunchOverride } from './api/launch-hooks.js';
export { Graph, type NodeOptions } from './api/graph.js';
export { GraphExec } from './api/graph-exec.js';
export { GraphNode, type GraphNodeKind } from './api/graph-node.js';
export { Blas, BLAS_WORKSPACE_BYTES } from './api/blas.js';
export { Fft } from './api/fft.js';
export { Builtins, type BuiltinDType } from './builtins/builtins.js';
