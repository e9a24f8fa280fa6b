// The error of the GPU libraries: a library that cannot be loaded, or a call it refused.
import { RxcudaError } from '../base/errors.js';

/** Which library an error is about. */
export type LibraryName = 'cuBLAS' | 'cuFFT';

/**
 * A GPU library (cuBLAS, cuFFT) could not be loaded, or refused a call. `code` is the library's
 * status number (a `cublasStatus_t` or a `cufftResult`), and `status` its name; where the library
 * could not be loaded, `code` is -1 (not found) or -2 (found without an entry point rxcuda needs),
 * and `searched` lists every file rxcuda tried. Thrown at the first call that needs the library,
 * never at import; bad arguments are `TypeError`s and `RangeError`s, thrown before anything is
 * enqueued.
 *
 * @example
 * try {
 *   device.blas.gemm(stream, a, b, c, { m, n, k });
 * } catch (error) {
 *   if (error instanceof LibraryError && error.code < 0) console.error(`no ${error.library}: ${error.message}`);
 *   else throw error;
 * }
 */
export class LibraryError extends RxcudaError {
  /** The class's name, `LibraryError`. */
  override readonly name = 'LibraryError';
  /** The library's status number; -1 when it was not found, -2 when it lacks an entry point. */
  declare readonly code: number;
  /** The library. */
  readonly library: LibraryName;
  /** The status's name, e.g. `CUBLAS_STATUS_NOT_SUPPORTED`, `CUFFT_INVALID_SIZE`, or `NOT_FOUND`. */
  readonly status: string;
  /** What failed, e.g. `cublasGemmEx` or `dlopen`. */
  readonly call: string;
  /** Every file rxcuda tried while looking for the library; empty when it was loaded. */
  readonly searched: readonly string[];

  /**
   * @param library the library.
   * @param code its status number (-1: not found, -2: an entry point missing).
   * @param status the status's name.
   * @param call what failed.
   * @param message what happened, and what to do.
   * @param searched the files tried, when it was looked for.
   */
  constructor(library: LibraryName, code: number, status: string, call: string, message: string, searched: readonly string[] = []) {
    super(message, code);
    this.library = library;
    this.status = status;
    this.call = call;
    this.searched = Object.freeze([...searched]);
  }
}

const CUBLAS_STATUS: Record<number, string> = {
  1: 'NOT_INITIALIZED', 3: 'ALLOC_FAILED', 7: 'INVALID_VALUE', 8: 'ARCH_MISMATCH', 11: 'MAPPING_ERROR',
  13: 'EXECUTION_FAILED', 14: 'INTERNAL_ERROR', 15: 'NOT_SUPPORTED', 16: 'LICENSE_ERROR',
};

const CUFFT_RESULT = [
  'SUCCESS', 'INVALID_PLAN', 'ALLOC_FAILED', 'INVALID_TYPE', 'INVALID_VALUE', 'INTERNAL_ERROR', 'EXEC_FAILED',
  'SETUP_FAILED', 'INVALID_SIZE', 'UNALIGNED_DATA', 'INCOMPLETE_PARAMETER_LIST', 'INVALID_DEVICE', 'PARSE_ERROR',
  'NO_WORKSPACE', 'NOT_IMPLEMENTED', 'LICENSE_ERROR', 'NOT_SUPPORTED',
];

/** @internal The name of a library status: `CUBLAS_STATUS_…` or `CUFFT_…`. */
export function statusName(library: LibraryName, code: number): string {
  if (library === 'cuBLAS') return `CUBLAS_STATUS_${CUBLAS_STATUS[code] ?? code}`;
  return `CUFFT_${CUFFT_RESULT[code] ?? `RESULT_${code}`}`;
}

/** @internal The error for a status the library answered `what` with. */
export function statusError(library: LibraryName, code: number, call: string, what: string): LibraryError {
  const status = statusName(library, code);
  return new LibraryError(library, code, status, call, `${call} failed: ${status} (${what})`);
}
