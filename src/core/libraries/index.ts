// The GPU's own libraries in stream order: cuBLAS (matrix products) and cuFFT (Fourier
// transforms) as stream commands, loaded at run time on a GPU and replaced by CPU references on
// the host device, with `device.blas` and `device.fft` added to Device. This folder owns the
// libraries' bindings, argument checks, plans, workspaces and graph nodes; it imports from base,
// native, memory, device, queue and graphs (graphs/node-work.ts's LibraryCall is the interface its graph
// nodes implement), and nothing imports from it but src/core/index.ts and the operators.
import './device-members.js';

export { Blas, BLAS_WORKSPACE_BYTES } from './blas.js';
export { Fft } from './fft.js';
export { MAX_PLANS } from './fft-plans.js';
export { LibraryError, type LibraryName } from './errors.js';
export { libraryInfo } from './availability.js';
export type { LibraryInfo } from './native.js';
export type { GemmDType, GemmOutput, GemmOptions } from './gemm-args.js';
export type { FftDType, FftKind, FftOptions, C2cOptions } from './fft-args.js';
