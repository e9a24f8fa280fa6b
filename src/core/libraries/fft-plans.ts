// The cuFFT plans of one device, cached by kind, precision, sizes and batch, at most MAX_PLANS
// of them: past that, the plan used longest ago leaves the cache. A plan is destroyed once it
// has left the cache, the streams that used it have finished with it and the graphs whose nodes
// run it have released it (a plan is held as memory is: see Allocation).
import { Allocation } from '../memory/allocation.js';
import type { DeviceEngine } from '../device/device-engine.js';
import type { Readiness } from './call.js';
import { statusError } from './errors.js';
import { fftName } from './fft-args.js';
import type { NativeFft } from './native.js';

/** Plans a device's cache keeps at most (CuPy's default too). */
export const MAX_PLANS = 16;

/** A plan's lifetime, as an allocation's: held by graphs, used by streams, released when evicted. */
class PlanResource extends Allocation {
  readonly portable = false;

  constructor(
    device: DeviceEngine,
    readonly destroy: () => void,
  ) {
    super(device, 0n);
  }

  protected free(): void {
    const streams = this.streams();
    if (streams.length === 0) this.destroy();
    else this.device.completionPoints.after(streams, undefined, () => this.destroy());
  }
}

/** @internal A cached plan: its slot in the native object, and the readiness its calls wait for. */
export interface PlanEntry extends Readiness {
  readonly slot: number;
  readonly resource: Allocation;
  readonly name: string;
  /** The name, as a call's failure names it (made once, so that calls make no function). */
  readonly describe: () => string;
  /** What a graph's node of a forward (-1) or inverse (1) call cannot change. */
  readonly shapes: { readonly [direction: number]: string };
}

/** @internal The plans of one device. */
export class PlanCache {
  readonly #device: DeviceEngine;
  readonly #native: NativeFft;
  /** In order of use, the latest last. */
  readonly #entries = new Map<string, PlanEntry>();

  constructor(device: DeviceEngine, native: NativeFft) {
    this.#device = device;
    this.#native = native;
  }

  /** Plans in the cache. */
  get size(): number {
    return this.#entries.size;
  }

  /** The plan `description` describes (made now if it is not cached), marked as used last. */
  get(description: Float64Array): PlanEntry {
    const key = description.join();
    let entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      return entry;
    }
    entry = this.#make(description);
    this.#entries.set(key, entry);
    if (this.#entries.size > MAX_PLANS) this.#evict(this.#entries.keys().next().value!);
    return entry;
  }

  /** Lets every plan go (each destroyed once its work is done). */
  clear(): void {
    for (const key of [...this.#entries.keys()]) this.#evict(key);
  }

  #evict(key: string): void {
    const entry = this.#entries.get(key)!;
    this.#entries.delete(key);
    entry.resource.release();
  }

  #make(description: Float64Array): PlanEntry {
    const native = this.#native;
    const [slot, made] = native.plan(description);
    const name = fftName(description);
    // Destroyed once made: a plan still being made is destroyed when it is.
    const destroy = () => void (entry.pending ? entry.pending.then(() => native.destroyPlan(slot)) : native.destroyPlan(slot));
    const shapes = { [-1]: `${name} -1`, 1: `${name} 1` };
    const entry: PlanEntry = { slot, name, describe: () => name, shapes, pending: undefined, failure: undefined, workBytes: 0, resource: new PlanResource(this.#device, destroy) };
    if (made) {
      entry.pending = made.then(
        ([status, workBytes]) => {
          if (status !== 0) entry.failure = statusError('cuFFT', status, 'cufftMakePlanMany64', `making the plan of ${name} on ${this.#device}`);
          entry.workBytes = workBytes;
        },
        (error: unknown) => {
          entry.failure = statusError('cuFFT', 5, 'cufftMakePlanMany64', `making the plan of ${name} on ${this.#device}: ${String(error)}`);
        },
      ).finally(() => (entry.pending = undefined));
    }
    return entry;
  }
}
