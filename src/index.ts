// rxcuda: reactive stream scheduling for NVIDIA GPUs from Node.js.
export * from './core/index.js';
export * from './operators/index.js';
