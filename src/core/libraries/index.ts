// The GPU's own libraries below Blas and Fft (core/api/): cuBLAS (matrix products) and cuFFT
// (Fourier transforms) loaded at run time on a GPU and replaced by CPU references on the host
// device. This folder owns the libraries' bindings, argument checks, plans, workspaces and graph
// nodes (graphs/node-work.ts's LibraryCall is the interface they implement); it imports from
// base, native, memory, device, queue and graphs.
export { MAX_PLANS } from './fft-plans.js';
export { LibraryError, type LibraryName } from './errors.js';
export { libraryInfo } from './availability.js';
export type { LibraryInfo } from './native.js';
export type { GemmDType, GemmOutput, GemmOptions } from './gemm-args.js';
export type { FftDType, FftKind, FftOptions, C2cOptions } from './fft-args.js';
