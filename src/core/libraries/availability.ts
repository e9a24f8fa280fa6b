// Whether cuBLAS and cuFFT can be loaded, asked at the first call that needs one (loading it
// then), never at import: the host device needs neither.
import { LibraryError, type LibraryName } from './errors.js';
import { libraries, type LibraryInfo } from './native.js';

/**
 * Finds and loads cuBLAS and cuFFT (once per process), and says what was found: each library's
 * file and version, or why it cannot be used and every file rxcuda tried. They are looked for in
 * `$CUDA_PATH/lib64` and `$CUDA_PATH/targets/x86_64-linux/lib`, the same folders of
 * `/usr/local/cuda`, then on the loader path. Never throws; the host device needs neither.
 * @example
 * const { cublas } = libraryInfo();
 * console.log(cublas.available ? `cuBLAS ${cublas.version} from ${cublas.path}` : cublas.problem);
 * @returns what was found of cuBLAS and of cuFFT.
 */
export function libraryInfo(): {
  /** What was found of cuBLAS. */
  readonly cublas: LibraryInfo;
  /** What was found of cuFFT. */
  readonly cufft: LibraryInfo;
} {
  return { cublas: libraries.libraryInfo('cublas'), cufft: libraries.libraryInfo('cufft') };
}

const refused = new Map<LibraryName, LibraryError | null>();

/**
 * @internal Throws the LibraryError that says why `library` cannot be used (code -1: not found;
 * -2: found without an entry point rxcuda needs), the same at every call.
 */
export function requireLibrary(library: LibraryName): void {
  let error = refused.get(library);
  if (error === undefined) {
    const info = libraries.libraryInfo(library === 'cuBLAS' ? 'cublas' : 'cufft');
    error = info.available ? null : refusal(library, info);
    refused.set(library, error);
  }
  if (error) throw error;
}

function refusal(library: LibraryName, info: LibraryInfo): LibraryError {
  const found = info.path !== '';
  return new LibraryError(library, found ? -2 : -1, found ? 'MISSING_ENTRY_POINT' : 'NOT_FOUND', found ? 'dlsym' : 'dlopen', info.problem, info.searched);
}
