// What memory needs of the streams that use it and of the device that owns it, declared here so
// that memory depends on neither: a stream's engine (queue/stream-engine.ts) and a device's engine (device/device-engine.ts) provide them.
import type { Backend, NativeDevice } from '../native/types.js';
import type { PinnedCache } from './pinned-cache.js';

/** A stream's lane, as memory uses it: to allocate and free in stream order. */
export interface MemoryLane {
  /** True once the stream closed: a free then goes behind a completion point instead. */
  readonly closed: boolean;
  /** True once the stream closed and all its work has completed (asked of the driver now). */
  readonly drained: boolean;
  /**
   * Calls `forget` once the stream has closed and all its work has completed: a holder of lanes
   * releases it then. For holders a lane outlives (a module); never called on a closed lane.
   */
  whenDrained(forget: () => void): void;
  readonly native: {
    alloc(bytes: number): bigint;
    free(ptr: bigint): void;
  };
  /** Gives `command` to the lane, in its order (behind what waits in its queue). */
  run(command: () => void): void;
}

/** The device that owns memory, as memory uses it: a device's engine (device/device-engine.ts). */
export interface MemoryDevice {
  readonly kind: 'cuda' | 'host';
  /** The public Device whose engine this is: what `memory.device` gives. */
  readonly face: object;
  /** `device 0`, `the host device`: how messages name it. */
  toString(): string;
  readonly backend: Backend;
  readonly native: NativeDevice;
  /** Pinned blocks kept for reuse (pinned-cache.ts). */
  readonly pinnedCache: PinnedCache;
  readonly completionPoints: {
    /**
     * Once the work of each of `lanes` so far has completed: `then` on the completion point's own
     * lane, then `done` on the main thread once that has completed too.
     */
    after(lanes: readonly MemoryLane[], then: ((lane: MemoryLane) => void) | undefined, done: () => void): void;
    /** `call` once the device's known work, and all work given to `lanes`, has completed. */
    whenQuiet(call: () => void, lanes?: readonly MemoryLane[]): void;
  };
}
