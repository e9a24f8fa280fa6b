// The native side of a kernel that has no compiled code of its own: a template's (its
// specializations have code) or a kernel's counterpart on a device its module is still loading on.
import { ArgumentTypeError } from '../base/errors.js';
import type { KernelAttributes, KernelLauncher, NativeKernel } from '../native/types.js';

/** A NativeKernel whose every use but a launch through specializations throws `why`. */
export class CodelessKernel implements NativeKernel {
  readonly #why: string;

  constructor(why: string) {
    this.#why = why;
  }

  handle(): bigint {
    return 0n;
  }

  paramInfo(): null {
    return null;
  }

  #none(): never {
    throw new ArgumentTypeError(this.#why, 'ERR_INVALID_ARG_VALUE');
  }

  attributes(): KernelAttributes {
    return this.#none();
  }

  setAttribute(): void {
    this.#none();
  }

  occupancy(): number {
    return this.#none();
  }

  suggestBlockSize(): { minGridSize: number; blockSize: number } {
    return this.#none();
  }

  bind(): KernelLauncher {
    return () => this.#none();
  }
}
