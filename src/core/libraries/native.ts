// The addon's library surface (native/src/cuda/blas.cpp, fft.cpp, library-graph.cpp,
// library-info.cpp; native/src/host/libraries.cpp), typed, and the layout of the blocks that
// library calls are described in. This file owns that layout; the addon's copy is checked
// against it when rxcuda loads.
import { addon } from '../native/addon.js';
import type { NativeDevice, NativeGraph, NativeGraphExec } from '../native/types.js';

/** What the addon says of one library, loading it on the first ask. */
export interface LibraryInfo {
  /** Whether it was found and has every entry point rxcuda uses. */
  readonly available: boolean;
  /** The file it was loaded from (its real path); empty when none was found. */
  readonly path: string;
  /** Its version, `major.minor.patch`; empty when it is not available. */
  readonly version: string;
  /** Why it cannot be used, in words; empty when it can. */
  readonly problem: string;
  /** Every file rxcuda tried, in order, up to the one it loaded. */
  readonly searched: readonly string[];
}

/** @internal cuBLAS of one device: CudaBlas or HostBlas. */
export interface NativeBlas {
  /** CUDA only: makes the handle off the main thread; resolves to [status]. */
  open?(): Promise<[number, number, number]>;
  /** The GEMM the block describes, on the stream it names; the library's status. */
  gemm(block: Float64Array): number;
  /** `gemm` of `block` as one Node-API call with nothing to unpack: for the block a Blas reuses. */
  bind(block: Float64Array): () => number;
}

/** @internal cuFFT plans of one device: CudaFft or HostFft. */
export interface NativeFft {
  /** A plan's slot, and (CUDA) the Promise of [status, work area bytes] it is made by. */
  plan(description: Float64Array): [number, Promise<[number, number, number]> | undefined];
  exec(block: Float64Array): number;
  /** `exec` of `block` as one Node-API call with nothing to unpack: for the block an Fft reuses. */
  bind(block: Float64Array): () => number;
  /** Destroys the plan in `slot` (off the main thread on CUDA); the slot is reused. */
  destroyPlan(slot: number): void;
}

interface LibraryAddon {
  libraryInfo(name: 'cublas' | 'cufft'): LibraryInfo;
  libraryBlocks(): Record<'gemm' | 'fft' | 'plan', Record<string, number>>;
  CudaBlas: new (device: NativeDevice) => NativeBlas;
  HostBlas: new (device: NativeDevice) => NativeBlas;
  CudaFft: new (device: NativeDevice) => NativeFft;
  HostFft: new (device: NativeDevice) => NativeFft;
  /** The node's index, or -1 - status when the library refused the call under capture. */
  addLibraryNode(graph: NativeGraph, kind: number, library: NativeBlas | NativeFft, block: Float64Array, workspaceBytes: number, deps: Uint32Array): number;
  /** The library's status. */
  setLibraryNode(exec: NativeGraphExec, index: number, kind: number, library: NativeBlas | NativeFft, block: Float64Array): number;
}

/** @internal */
export const libraries = addon as unknown as LibraryAddon;

/** @internal Fields of a GEMM block: column-major, as cuBLAS takes it (driver/library-blocks.hpp). */
export const G = {
  streamLo: 0, streamHi: 1, transA: 2, transB: 3, m: 4, n: 5, k: 6, alpha: 7, beta: 8,
  aLo: 9, aHi: 10, lda: 11, strideA: 12, bLo: 13, bHi: 14, ldb: 15, strideB: 16,
  cLo: 17, cHi: 18, ldc: 19, strideC: 20, batch: 21, abType: 22, cType: 23,
  workLo: 24, workHi: 25, workBytes: 26, slots: 27,
} as const;

/** @internal Element codes of GEMM operands. */
export const ELEMENT = { f32: 0, f16: 1, bf16: 2, f64: 3 } as const;

/** @internal Fields of an FFT execution block. */
export const F = { streamLo: 0, streamHi: 1, plan: 2, direction: 3, inLo: 4, inHi: 5, outLo: 6, outHi: 7, workLo: 8, workHi: 9, workBytes: 10, slots: 11 } as const;

/** @internal Fields of a plan's description, and the codes of its kinds and precisions. */
export const P = { kind: 0, precision: 1, rank: 2, n0: 3, batch: 6, slots: 7 } as const;
export const KIND = { c2c: 0, r2c: 1, c2r: 2 } as const;
export const PRECISION = { f32: 0, f64: 1 } as const;

/** @internal Library kinds, as addLibraryNode names them. */
export const CUBLAS = 0;
export const CUFFT = 1;

/** The addon's indices must be these: a stale build would read its blocks wrong. */
function checkLayout(): void {
  const native = libraries.libraryBlocks();
  const expected: Record<'gemm' | 'fft' | 'plan', Record<string, number>> = {
    gemm: { ...G, bf16: ELEMENT.bf16, f64: ELEMENT.f64 },
    fft: F,
    plan: { ...P, c2r: KIND.c2r, double: PRECISION.f64 },
  };
  for (const block of ['gemm', 'fft', 'plan'] as const)
    for (const [field, index] of Object.entries(native[block]))
      if (expected[block][field] !== index)
        throw new Error(`The rxcuda native addon is stale: its ${block} block has ${field} at ${index}, not ${expected[block][field]}. Rebuild it with \`npm run build:native\`.`);
}

checkLayout();

/** Writes an address's two 32-bit halves at `at` and `at + 1`. */
export function writeAddress(block: Float64Array, at: number, lo: number, hi: number): void {
  block[at] = lo;
  block[at + 1] = hi;
}
