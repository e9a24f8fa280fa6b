// Writing what rxcuda makes for people (a Chrome trace, an HTML timeline) to a file, with a failure
// that says what could not be written where, as an RxcudaError, instead of a bare ENOENT.
import { writeFile } from 'node:fs/promises';
import { RxcudaError } from '../../core/index.js';
import { typeError } from '../../core/base/errors.js';

/**
 * A file that rxcuda was asked to write could not be written: its folder is missing or not
 * writable, the path is a folder, the disk is full… `path` is the path as given, `cause` the
 * file system's error (with its `code`, such as `ENOENT` or `EACCES`). `code` is undefined: the
 * class, `path` and `cause` say it all.
 *
 * @example
 * try {
 *   await timeline.write('/nonexistent/trace.json');
 * } catch (error) {
 *   if (error instanceof FileWriteError) console.error(error.message); // names the path and why
 *   else throw error;
 * }
 */
export class FileWriteError extends RxcudaError {
  /** The class's name, `FileWriteError`. */
  override readonly name = 'FileWriteError';
  declare readonly code: undefined;
  /** The path that could not be written, as given. */
  readonly path: string;

  /**
   * @param what what was to be written, e.g. `the Chrome trace`.
   * @param path where.
   * @param cause the file system's error.
   */
  constructor(what: string, path: string, cause: unknown) {
    super(`Could not write ${what} to ${path}: ${cause instanceof Error ? cause.message : String(cause)}`, undefined, { cause });
    this.path = path;
  }
}

/**
 * Writes `text` to the file at `path` (replacing it).
 * @throws TypeError when `path` is not a non-empty string; rejects with a {@link FileWriteError}
 * when the file cannot be written.
 */
export async function writeTextFile(what: string, path: string, text: string): Promise<void> {
  if (typeof path !== 'string' || path === '') typeError('path', 'a file path (a non-empty string)', path);
  try {
    await writeFile(path, text);
  } catch (error) {
    throw new FileWriteError(what, path, error);
  }
}
