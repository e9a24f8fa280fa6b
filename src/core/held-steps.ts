// Held host steps of one device, and the driver calls that must wait until there are none.
// Loading or unloading a module and freeing pinned memory wait, inside the driver, for the work
// of every stream of the device (measured on an H200: a module load returned only when a kernel on
// another stream did). A stream held by a host step waits for the main thread, so such a call made
// there while a step is held never returns. rxcuda makes them only when no step is held.

/** @internal Counts a device's held steps; runs deferred calls when the count returns to zero. */
export class HeldSteps {
  #count = 0;
  #deferred: (() => void)[] = [];

  /** Steps enqueued and not yet released. */
  get count(): number {
    return this.#count;
  }

  enqueued(): void {
    this.#count++;
  }

  /** A step settled and opened its gate: the device goes on without the main thread. */
  released(): void {
    if (--this.#count > 0) return;
    for (const call of this.#deferred.splice(0)) {
      try {
        call();
      } catch {
        // A release that fails (after a sticky error, say) leaves the resource to the context.
      }
    }
  }

  /** Makes `call` now when no step is held (errors reach the caller), else once none is. */
  whenNone(call: () => void): void {
    if (this.#count === 0) call();
    else this.#deferred.push(call);
  }

  /** Resolves when no step is held. */
  none(): Promise<void> {
    return this.#count === 0 ? Promise.resolve() : new Promise((resolve) => this.#deferred.push(resolve));
  }
}
