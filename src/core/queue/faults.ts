// A device's sticky error. Once a context breaks (an illegal address, a launch failure) nothing
// more runs on it: every later call fails fast with the error that broke it, and the host device
// stops its streams' work as a GPU's context stops.
import { CudaError } from '../base/errors.js';

/** The sticky error of one device, shared by its lanes. */
export class Faults {
  #poisoned: CudaError | undefined;
  readonly #poison: ((code: number) => void) | undefined;

  /** @param poison tells the native device that it broke (the host backend stops its work then). */
  constructor(poison?: (code: number) => void) {
    this.#poison = poison;
  }

  /** The sticky error that broke the device, or undefined. */
  get poisoned(): CudaError | undefined {
    return this.#poisoned;
  }

  /** Records `error` when it is the first sticky error: every later call then throws it. */
  record(error: unknown): void {
    if (!(error instanceof CudaError) || !error.sticky || this.#poisoned) return;
    this.#poisoned = error;
    this.#poison?.(error.code);
  }

  /** Records a sticky error and rethrows any error as it is. */
  fail(error: unknown): never {
    this.record(error);
    throw error;
  }

  /** Throws the sticky error, if there is one. */
  check(): void {
    if (this.#poisoned) throw this.#poisoned;
  }
}
