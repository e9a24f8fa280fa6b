// How a CUDA executable's bounded while loops report that the device stopped them. Each loop holds
// a counter slot of the built-in module (condition-kernels.ts); the executable holds one more, for
// the count of its launches, which a kernel node at the start of each launch raises. A guard that
// stops its loop notes the loop's number in the entry of a ring of pinned words that this launch's
// count names, and the check that follows the launch on its stream (a completion callback) reads
// and clears the entry it expects: each launch's report is its own, however many launches the
// device runs before the main thread checks (up to the ring's size).
import { LoopLimitError } from '../base/loop-limit-error.js';
import type { DeviceEngine } from '../device/device-engine.js';
import { memoryClasses, type HostMemoryView } from '../memory/memory-view.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import type { ConditionKernels } from './condition-kernels.js';

/** Launches of one executable that may run on the device before the first of them is checked. */
export const REPORT_RING = 1024;

/** A CUDA executable's bounded loops and their reports. */
export class LoopReports {
  readonly #device: DeviceEngine;
  readonly #kernels: ConditionKernels;
  readonly #loops: { slot: number; name: string; maxIterations: number }[] = [];
  readonly #ring: HostMemoryView<'u32'>;
  /** The executable's launch-count slot, and its number there. */
  readonly #exec: number;
  readonly #owner: number;
  #launched = 0;
  #closed = false;
  readonly #lanes = new Set<StreamEngine>();

  constructor(device: DeviceEngine, kernels: ConditionKernels) {
    this.#device = device;
    this.#kernels = kernels;
    device.checkUsable();
    this.#ring = memoryClasses.allocateHost(device, 'u32', REPORT_RING);
    this.#ring.data.fill(0);
    this.#exec = kernels.slots.take();
    this.#owner = kernels.slots.owner();
  }

  get count(): number {
    return this.#loops.length;
  }

  /** The launch-count kernel's arguments. */
  get beginArgs(): readonly unknown[] {
    return [this.#exec, this.#owner];
  }

  /** A new loop: the guard's arguments after its two conditions. */
  add(name: string, maxIterations: number): { slot: number; guardArgs: readonly unknown[] } {
    const slot = this.#kernels.slots.take();
    this.#loops.push({ slot, name, maxIterations });
    return { slot, guardArgs: [slot, maxIterations, this.#ring.ptr, REPORT_RING, this.#exec, this.#loops.length] };
  }

  /**
   * Notes a launch on `lane` (the ring is freed, and the slots given back, only behind the work of
   * every lane it ran on); returns its number, for its check.
   */
  launched(lane: StreamEngine): number {
    this.#lanes.add(lane);
    this.#ring.allocation.use(lane);
    return ++this.#launched;
  }

  /** Throws a LoopLimitError when a loop of launch `n` was stopped, clearing the report. */
  check(n: number): void {
    if (this.#closed) return; // closed meanwhile: nobody waits for its reports
    const words = memoryClasses.elements(this.#ring);
    const at = n % REPORT_RING;
    const loop = words[at]!;
    if (loop === 0) return;
    words[at] = 0;
    const { name, maxIterations } = this.#loops[loop - 1]!;
    throw new LoopLimitError(name, maxIterations);
  }

  /** Gives the slots back, and frees the ring, once the launches made have completed. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const slots = [this.#exec, ...this.#loops.map((loop) => loop.slot)];
    const give = () => {
      for (const slot of slots) this.#kernels.slots.give(slot);
      this.#ring.close();
    };
    const lanes = [...this.#lanes];
    this.#lanes.clear();
    if (lanes.length === 0) give();
    else this.#device.completionPoints.after(lanes, undefined, give); // a launch in flight still counts and writes
  }
}
