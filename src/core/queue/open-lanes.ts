// The lanes of a device's open streams, held weakly: a stream nobody closed is still collected
// (its native object destroys it), and drops out of the set when it is.
import type { Lane } from './lane.js';

/** The open lanes of one device. */
export class OpenLanes {
  readonly #refs = new Set<WeakRef<Lane>>();

  /** Notes an open stream's lane; the returned token is for {@link untrack}, at its close. */
  track(lane: Lane): WeakRef<Lane> {
    const ref = new WeakRef(lane);
    this.#refs.add(ref);
    return ref;
  }

  /** Forgets a lane {@link track} noted: its stream closed. */
  untrack(ref: WeakRef<Lane>): void {
    this.#refs.delete(ref);
  }

  /** The lanes still alive, forgetting the collected ones. */
  live(): Lane[] {
    const live: Lane[] = [];
    for (const ref of this.#refs) {
      const lane = ref.deref();
      if (lane) live.push(lane);
      else this.#refs.delete(ref);
    }
    return live;
  }
}
