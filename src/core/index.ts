// The object model over the addon: devices, streams, events, memory, kernels and graphs. What
// rxcuda exports of src/core, folder by folder, lowest first; the reactive layer builds on these.
export * from './base/index.js';
export * from './native/index.js';
export * from './memory/index.js';
export * from './queue/index.js';
export * from './device/index.js';
export * from './compiler/index.js';
export * from './kernels/index.js';
export * from './graphs/index.js';
export * from './builtins/index.js';
export * from './libraries/index.js';
