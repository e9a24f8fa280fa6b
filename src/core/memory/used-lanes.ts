// The lanes whose work used a resource (an allocation, a module), which its free or unload waits
// for. A lane whose stream closed and whose work is done has nothing left to wait for: it is
// removed, so that a resource that outlives many short-lived streams (a module kept for the process, an
// array that every request's stream reads) does not keep each of them, and all they reference,
// alive. It leaves when it tells (a module's lanes, see ModuleEngine.usedOn), or at the latest
// when the set has doubled since it was last looked through (amortized: no lane is looked at twice as
// often as lanes are added).
import type { MemoryLane } from './owner.js';

/** Lanes at least before the set is looked through for drained ones (closed, their work done). */
const LOOK_FROM = 16;

/** A set of lanes that drops the drained ones. */
export class UsedLanes {
  readonly #lanes = new Set<MemoryLane>();
  #lookAt = LOOK_FROM;

  /** Adds `lane`; true when it was not there yet. */
  add(lane: MemoryLane): boolean {
    if (this.#lanes.has(lane)) return false;
    this.#lanes.add(lane);
    if (this.#lanes.size >= this.#lookAt) {
      for (const known of this.#lanes) if (known.drained) this.#lanes.delete(known);
      this.#lookAt = Math.max(LOOK_FROM, this.#lanes.size * 2);
    }
    return true;
  }

  /** Removes `lane`: it has drained. */
  delete(lane: MemoryLane): void {
    this.#lanes.delete(lane);
  }

  has(lane: MemoryLane): boolean {
    return this.#lanes.has(lane);
  }

  get size(): number {
    return this.#lanes.size;
  }

  clear(): void {
    this.#lanes.clear();
  }

  [Symbol.iterator](): IterableIterator<MemoryLane> {
    return this.#lanes.values();
  }
}
