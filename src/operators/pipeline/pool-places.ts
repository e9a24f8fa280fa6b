// A pool's places in flight: the bound on values whose device work has not finished, counted per
// device, the places held for values on their way, and the turns in which pipelines sharing the
// pool take freed places.
import type { Device } from '../../core/device/device.js';

/** Counters of a pool, for seeing that the bound holds and that nothing is kept. */
export interface LanePoolStats {
  /** Values whose device work has not finished. */
  readonly inFlight: number;
  /** The most values ever in flight at once. */
  readonly maxInFlight: number;
  /** Pooled buffers handed out and not yet returned. */
  readonly buffersInUse: number;
  /** Pooled buffers ever allocated (steady state: this stops growing). */
  readonly buffersCreated: number;
  /** Values whose completion the native watcher was given (on a GPU, by the pool's `spin`). */
  readonly watched: number;
  /** Values whose completion came through a host callback (`spin: 0`, the host device, or after a give-up). */
  readonly notified: number;
  /** Watches that gave up (a value outlasted `spin`): each makes its lane notify the next values. */
  readonly watchesGivenUp: number;
}

/** The in-flight places of one pool. */
export class Places {
  readonly #bound: number;
  /** The pipelines on the pool, each called when a value finishes and another may start. */
  readonly #pipelines: (() => void)[] = [];
  /** The pipeline that started a value last: a freed place is offered to the one after it first. */
  #last: (() => void) | undefined;
  /** Values in flight per device. */
  readonly #perDevice = new Map<Device, number>();
  /** Places held for values on their way (pulled from a source that answers later). */
  #reserved = 0;
  #inFlight = 0;
  #maxInFlight = 0;

  constructor(bound: number) {
    this.#bound = bound;
  }

  /** Values in flight now, and the most ever in flight at once. */
  get inFlight(): number {
    return this.#inFlight;
  }

  get maxInFlight(): number {
    return this.#maxInFlight;
  }

  /** Whether no further value may start (places held for values on their way count). */
  get full(): boolean {
    return this.#inFlight + this.#reserved >= this.#bound;
  }

  /** Values in flight on `device` now. */
  on(device: Device): number {
    return this.#perDevice.get(device) ?? 0;
  }

  /**
   * Calls `onSlot` whenever a value finishes and another may start, until `detach`: every
   * pipeline on the pool hears of every freed place. The pipeline calls `took` when it starts a
   * value, which passes the turn to the pipeline after it.
   */
  attach(onPlaceFree: () => void): { took(): void; detach(): void } {
    const pipelines = this.#pipelines;
    pipelines.push(onPlaceFree);
    return {
      took: () => {
        this.#last = onPlaceFree;
      },
      detach: () => {
        const at = pipelines.indexOf(onPlaceFree);
        if (at >= 0) pipelines.splice(at, 1);
      },
    };
  }

  /** Holds a free place for a value on its way; false when there is none. */
  reserve(): boolean {
    if (this.full) return false;
    this.#reserved++;
    return true;
  }

  /**
   * Gives back a place {@link reserve} held: `taken`, the value it was held for starts in it now;
   * else the place is free again and offered to the pipelines.
   */
  unreserve(taken: boolean): void {
    this.#reserved--;
    if (!taken) this.#offer();
  }

  /** A value started (+1) or finished (-1) on `device`. */
  countInFlight(delta: 1 | -1, device: Device): void {
    this.#inFlight += delta;
    this.#maxInFlight = Math.max(this.#maxInFlight, this.#inFlight);
    this.#perDevice.set(device, this.on(device) + delta);
    if (delta < 0) this.#offer();
  }

  /**
   * Offers freed places to the pipelines while places are free, from the one whose turn it is
   * (the one after the last that started a value), so that pipelines take turns whether or not
   * the others have values waiting.
   */
  #offer(): void {
    const pipelines = this.#pipelines;
    if (pipelines.length === 1) return pipelines[0]!();
    const offered = [...pipelines]; // the list as it is now: pipelines may stop meanwhile
    const from = (offered.indexOf(this.#last!) + 1) % offered.length; // the first when it has stopped
    for (let k = 0; k < offered.length && !this.full; k++) {
      const pipeline = offered[(from + k) % offered.length]!;
      if (pipelines.includes(pipeline)) pipeline(); // unless it stopped since
    }
  }
}
