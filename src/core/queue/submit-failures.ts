// Failed submissions, heard asynchronously: a device thread (or a host-device stream) that could not give
// a command to the driver announces it with a notice on the completion queue, and this routes each
// failure to its stream's lane by the stream's handle.
import { CudaError } from '../base/errors.js';
import { addon } from '../native/addon.js';
import { onSubmitNotice } from '../native/completions.js';

/** What a failed submission reaches: a stream engine (stream-engine.ts). */
export interface FailingLane {
  readonly handle: bigint;
  submitFailed(error: CudaError): void;
}

/** The lanes of this environment by their stream's handle, held weakly. */
class LaneFailures {
  readonly #lanes = new Map<bigint, WeakRef<FailingLane>>();
  #listening = false;

  /** Notes a lane, so that a failure of its stream reaches it (a later lane of the same handle replaces it). */
  track(lane: FailingLane): void {
    if (!this.#listening) {
      this.#listening = true;
      onSubmitNotice(() => this.#deliver());
    }
    this.#sweep();
    this.#lanes.set(lane.handle, new WeakRef(lane));
  }

  #deliver(): void {
    for (const { handle, code, call } of addon.takeSubmitFailures()) {
      const lane = this.#lanes.get(handle)?.deref();
      if (!lane) continue; // collected: nobody is left to tell
      const { name, message } = addon.describeError(code);
      lane.submitFailed(new CudaError(code, name, call, `${call} failed when the stream's commands were submitted: ${name} (${message})`));
    }
  }

  /** Forgets collected lanes now and then, so that the map stays the size of the live ones. */
  #sweep(): void {
    if (this.#lanes.size < 64 || (this.#lanes.size & (this.#lanes.size - 1)) !== 0) return;
    for (const [handle, ref] of this.#lanes) if (!ref.deref()) this.#lanes.delete(handle);
  }
}

export const laneFailures = new LaneFailures();
