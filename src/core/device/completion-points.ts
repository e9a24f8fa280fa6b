// Completion points that follow work spread over lanes (an event's completion, a free behind
// several streams, an unload): each gets a lane of its own from the device's completion-point pool,
// waits there for the points it follows, and is notified there. No completion point waits behind an
// unrelated one, and a lane goes back to that pool only once its own wait has completed.
import type { MemoryLane } from '../memory/owner.js';
import type { Faults } from '../queue/faults.js';
import { completionCommand } from '../queue/host-steps.js';
import { StreamEngine, type EngineEvent, type EngineMark } from '../queue/stream-engine.js';

/** What the completion points of a device take from it. */
export interface PointsOwner {
  readonly faults: Faults;
  /** The lanes of the device's open streams. */
  liveLanes(): StreamEngine[];
  /** A new lane of rxcuda's own. */
  newLane(): StreamEngine;
  /** A new event of the device, to record on a lane and wait for on others. */
  newEvent(): EngineEvent;
}

/** A device's pool of lanes for completion points. */
export class CompletionPoints {
  readonly #owner: PointsOwner;
  readonly #free: StreamEngine[] = [];
  #open = 0;

  constructor(owner: PointsOwner) {
    this.#owner = owner;
  }

  /** Pool lanes made so far (busy or free): as many as completion points ever overlapped. */
  get size(): number {
    return this.#open;
  }

  /**
   * Once the work before each of `points` has completed (an event's latest record, or all work
   * given to a lane so far; queued work included): enqueues `then` on the point's own lane (a
   * free, say), then calls `done` on the main thread with the lane's status (and the error, when
   * it failed) once that has completed too. Memory names the lanes that used it as MemoryLanes:
   * they are streams' lanes.
   */
  after(points: readonly (EngineMark | MemoryLane)[], then: ((lane: StreamEngine) => void) | undefined, done: (status: number, error?: unknown) => void): void {
    // A broken context runs nothing more: what waits for it settles with its error at once.
    const broken = this.#owner.faults.poisoned;
    if (broken) return done(-1, broken);
    let lane: StreamEngine;
    try {
      lane = this.#free.pop() ?? this.#create();
    } catch (error) {
      return done(-1, error);
    }
    for (const point of points) {
      if (point instanceof StreamEngine) this.#waitForWorkOf(lane, point);
      else lane.run((point as EngineMark).waitCommand(lane, (error) => lane.queuedFailure(error)));
    }
    then?.(lane);
    lane.run(completionCommand(lane, (status, error) => {
      this.#free.push(lane);
      done(status, error);
    }));
  }

  /**
   * Calls `call` once the work that every open stream of the device has handed to the driver so
   * far has completed (work still waiting in a stream's queue, behind an unsettled host step, is
   * not on the device and is not waited for), and all work given to `closed` (lanes that used the
   * resource and may have closed since): for driver calls that wait for the whole device (a module
   * load or unload, a pinned free). Made while a kernel runs, such a call would wait for it inside
   * the driver, holding the driver's lock that the main thread's next driver call needs (an
   * allocHost then waits for a kernel on another stream); made after the device's known work, it
   * seldom waits at all. On a broken context the call fails in the driver.
   */
  whenQuiet(call: () => void, closed: readonly MemoryLane[] = []): void {
    // An event behind what each open lane has handed to the driver so far, recorded past its
    // queue: work still queued is not on the device, and is not waited for.
    const markers: EngineEvent[] = [];
    try {
      for (const lane of this.#owner.liveLanes()) {
        if (closed.includes(lane)) continue;
        const marker = this.#owner.newEvent();
        marker.recordCommand(lane)();
        markers.push(marker);
      }
    } catch {
      // A broken context: nothing more runs on it, and the call fails in the driver.
    }
    this.after([...markers, ...closed], undefined, () => call());
    for (const marker of markers) marker.close(); // the queued waits keep their native events
  }

  /**
   * Makes `lane`'s later work wait for all work given to `other` so far (queued work included; for
   * a closed lane, the event it recorded last of all).
   */
  #waitForWorkOf(lane: StreamEngine, other: StreamEngine): void {
    if (other.tail) return lane.run(other.tail.waitCommand(lane, (error) => lane.queuedFailure(error)));
    const marker = this.#owner.newEvent();
    other.run(marker.recordCommand(other));
    lane.run(marker.waitCommand(lane, (error) => lane.queuedFailure(error)));
    marker.close(); // the queued wait keeps its native event
  }

  #create(): StreamEngine {
    this.#open++;
    return this.#owner.newLane();
  }
}
