// The lanes of a device's open streams, held weakly: a stream nobody closed is still collected
// (its native object destroys it), and drops out of the set when it is. A closed stream whose
// queue still holds work (behind an unsettled step) is held until that work has gone to the
// driver, so that a fault of the device reaches what waits there (faults.ts).
import type { StreamEngine } from './stream-engine.js';

/** The open lanes of one device. */
export class OpenLanes {
  readonly #refs = new Set<WeakRef<StreamEngine>>();
  readonly #closing = new Set<StreamEngine>();

  /** Notes an open stream's lane; the returned token is for {@link untrack}, at its close. */
  track(lane: StreamEngine): WeakRef<StreamEngine> {
    const ref = new WeakRef(lane);
    this.#refs.add(ref);
    return ref;
  }

  /**
   * Forgets a lane {@link track} noted: its stream closes (called before the lane's close). One
   * whose queue holds work is kept among the closing lanes until the queue is flushed.
   */
  untrack(ref: WeakRef<StreamEngine>): void {
    this.#refs.delete(ref);
    const lane = ref.deref();
    if (!lane || lane.unqueued) return;
    this.#closing.add(lane);
    void lane.flushed().then(() => this.#closing.delete(lane));
  }

  /** The lanes still alive, forgetting the collected ones. */
  live(): StreamEngine[] {
    const live: StreamEngine[] = [];
    for (const ref of this.#refs) {
      const lane = ref.deref();
      if (lane) live.push(lane);
      else this.#refs.delete(ref);
    }
    return live;
  }

  /** Every lane a fault of the device must reach: the live ones, and the closed ones still queuing. */
  all(): StreamEngine[] {
    const lanes = this.live();
    for (const lane of this.#closing) lanes.push(lane);
    return lanes;
  }
}
