// A device's sticky error. Once a context breaks (an illegal address, a launch failure) nothing
// more runs on it: every later call fails fast with the error that broke it, the host device
// stops its streams' work as a GPU's context stops, and every lane of the device breaks at once:
// what waits in rxcuda's queues behind an unsettled step (a wait, an `onDone`, a completion point)
// settles with the error instead of waiting for a step that may never settle.
//
// A GPU's fault is known when the driver says so: a callback's status, a call's result. Work that
// waits in rxcuda's queues is not at the driver, so while some does, the driver is asked each
// second whether the context broke meanwhile (a query of each open stream not under capture,
// which returns the context's sticky error): those waits settle within about a second of the
// fault, not never.
import { CudaError } from '../base/errors.js';

/** How often a CUDA device's streams are queried for a fault while work waits in its lanes' queues. */
export const FAULT_WATCH_MS = 1000;

/** A lane, as its device's faults reach it. */
export interface FaultLane {
  /** True once the stream closed (its native stream may be gone: it is not queried). */
  readonly closed: boolean;
  /** Whether nothing waits in its queue. */
  readonly unqueued: boolean;
  readonly native: { query(): boolean; capturing(): boolean };
  /** The device broke: drop the queued work, settle what waits for it. */
  break(error: CudaError): void;
}

/** The sticky error of one device, shared by its lanes. */
export class Faults {
  #poisoned: CudaError | undefined;
  readonly #poison: ((code: number) => void) | undefined;
  readonly #lanes: () => Iterable<FaultLane>;
  /** Whether the device's faults are only known from the driver (a CUDA device's). */
  readonly #watched: boolean;
  #watch: ReturnType<typeof setTimeout> | undefined;
  /**
   * The lanes whose queue holds work, held strongly until it has run or been dropped: a fault
   * must reach what waits there even where nothing else holds the lane (a pipeline's value
   * queued behind a step whose Promise nobody holds would otherwise be collected with its lane,
   * and the fault reach nothing).
   */
  readonly #queuing = new Set<FaultLane>();

  /**
   * @param poison tells the native device that it broke (the host backend stops its work then).
   * @param lanes every lane of the device that a fault must reach: the open ones, and the closed
   * ones whose queue still holds work.
   * @param watched query the lanes for a fault while work waits in their queues (a CUDA device).
   */
  constructor(poison?: (code: number) => void, lanes: () => Iterable<FaultLane> = () => [], watched = false) {
    this.#poison = poison;
    this.#lanes = lanes;
    this.#watched = watched;
  }

  /** The sticky error that broke the device, or undefined. */
  get poisoned(): CudaError | undefined {
    return this.#poisoned;
  }

  /**
   * Records `error` when it is the first sticky error: every later call then throws it, and every
   * lane of the device breaks (its queued work dropped, its waits settled with it).
   */
  record(error: unknown): void {
    if (!(error instanceof CudaError) || !error.sticky || this.#poisoned) return;
    this.#poisoned = error;
    if (this.#watch) clearTimeout(this.#watch);
    this.#watch = undefined;
    this.#poison?.(error.code);
    for (const lane of this.#lanes()) lane.break(error);
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

  /**
   * `lane` queued a command behind work that holds it: the lane is held until its queue empties
   * and, on a CUDA device, the watch starts (if it is not running), so that a fault elsewhere
   * reaches what waits there. The watch's timer is unreferenced: it never keeps the process alive.
   */
  queued(lane: FaultLane): void {
    this.#queuing.add(lane);
    this.#startWatch();
  }

  #startWatch(): void {
    if (!this.#watched || this.#watch !== undefined || this.#poisoned) return;
    this.#watch = setTimeout(() => this.#look(), FAULT_WATCH_MS).unref();
  }

  /** Nothing waits in `lane`'s queue any more: it is no longer held for its faults. */
  emptied(lane: FaultLane): void {
    this.#queuing.delete(lane);
  }

  /** Queries the open lanes once for a fault, and looks again later while work still waits. */
  #look(): void {
    this.#watch = undefined;
    const lanes = [...this.#lanes()];
    if (!lanes.some((lane) => !lane.unqueued)) return;
    for (const lane of lanes) {
      try {
        // A stream that other code captures is not asked: a query would invalidate its capture.
        if (lane.closed || lane.native.capturing()) continue;
        lane.native.query();
      } catch (error) {
        this.record(error);
        if (this.#poisoned) return;
      }
    }
    this.#startWatch();
  }
}
