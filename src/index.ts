// rxcuda: reactive stream scheduling for NVIDIA GPUs from Node.js.
/**
 * rxcuda: CUDA streams, kernel launches, copies and host steps as RxJS operators, on an NVIDIA GPU
 * (the `cuda` backend) or on the CPU reference device with the same contract (the `host` backend).
 *
 * The package's entry points are `rxcuda` (this module) and `rxcuda/jetstream`. A third,
 * `rxcuda/internal`, serves rxcuda's own benchmarks: it is outside the versioning promise and not
 * documented here.
 *
 * @module rxcuda
 */
export * from './core/index.js';
export * from './operators/index.js';
