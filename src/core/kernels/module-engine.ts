// What rxcuda keeps of a loaded module, below the public Module (api/module.ts): its loaded image,
// the lanes that launched its kernels (its unload waits for them), the graphs and executables that
// hold it, and its code on other devices. It names the module and its devices by what it needs of
// them, which a public Module and Device are.
import { rangeError, received } from '../base/errors.js';
import type { DeviceEngine } from '../device/device-engine.js';
import type { MemoryLane } from '../memory/owner.js';
import { UsedLanes } from '../memory/used-lanes.js';
import type { NativeModule } from '../native/types.js';

/** A device, as a module engine needs it: its engine, and how messages name it (a public Device is one). */
export interface ModuleDevice {
  readonly engine: DeviceEngine;
  readonly kind: 'cuda' | 'host';
  toString(): string;
}

/** A module, as its engine needs it and its counterparts on other devices (a public Module is one). */
export interface EngineModule<D extends ModuleDevice> {
  readonly device: D;
  close(): void;
}

/** Loads a module's code on another device (its image again, or compiled for that device). */
export type Reload<M, D> = (device: D) => M | Promise<M>;

/**
 * Unloads a module once the work given to the device so far (the launches from it included) has
 * finished, on a worker thread: the driver's unload waits for the whole device.
 */
function unload(device: DeviceEngine, native: NativeModule | undefined, streams: UsedLanes): void {
  const used = [...streams];
  streams.clear();
  if (native) device.completionPoints.whenQuiet(() => native.unload(), used);
}

// A module nobody closed is unloaded the same way when it is collected.
const unloadWhenCollected = new FinalizationRegistry<{ device: DeviceEngine; native: NativeModule; streams: UsedLanes }>(
  ({ device, native, streams }) => {
    try {
      unload(device, native, streams);
    } catch {
      // The device is gone (process teardown): the context takes its modules with it.
    }
  },
);

/** The engine of one loaded module: see the file's opening comment. */
export class ModuleEngine<M extends EngineModule<D>, D extends ModuleDevice> {
  /** The module it serves. */
  readonly module: M;
  /** The loaded image; none on the host device. */
  readonly native: NativeModule | undefined;
  /** The lanes that launched its kernels: its unload waits for them. */
  readonly streams = new UsedLanes();
  /** True once the module's `close()` was called. */
  closed = false;
  readonly #reload: Reload<M, D> | undefined;
  readonly #placeholder: (device: D) => M;
  /** The module's code on other devices, loaded (or loading) on first use there. */
  readonly #elsewhere = new Map<D, M | Promise<M>>();
  /** Graphs and executables whose kernel nodes use it: the unload waits until they release it. */
  #held = 0;

  /**
   * The engine of `module`, whose image is `native`; `reload` loads its code on another device,
   * `placeholder` makes a module with no code there. A module with an image that nobody closes is
   * unloaded once `module` is collected.
   */
  constructor(module: M, native: NativeModule | undefined, reload: Reload<M, D> | undefined, placeholder: (device: D) => M) {
    this.module = module;
    this.native = native;
    this.#reload = reload;
    this.#placeholder = placeholder;
    if (native) unloadWhenCollected.register(module, { device: module.device.engine, native, streams: this.streams }, this);
  }

  /**
   * A module with no code on `device`, for kernels whose code is elsewhere (a template's kernels
   * and a kernel's counterpart still loading: kernels of specializations, which never ask it to
   * load on another device).
   */
  placeholder(device: D): M {
    return this.#placeholder(device);
  }

  /**
   * The module's code on `device`: itself on its own device, else loaded there on the first ask
   * and kept (a load that failed is tried again on the next ask); closed with this one.
   * @throws RangeError for a device of another backend, or a module that cannot be reloaded.
   */
  on(device: D): M | Promise<M> {
    const own = this.module.device;
    if (device === own) return this.module;
    const known = this.#elsewhere.get(device);
    if (known) return known;
    if (device.engine.backend !== own.engine.backend || !this.#reload)
      rangeError('stream', `a stream of a ${own.kind} device`, received(`a stream of ${device}`));
    const loaded = this.#reload(device);
    this.#elsewhere.set(device, loaded);
    if (loaded instanceof Promise)
      loaded.then(
        (module) => {
          this.#elsewhere.set(device, module);
          if (this.closed) module.close();
        },
        () => this.#elsewhere.delete(device),
      );
    return loaded;
  }

  /**
   * Notes a lane that launched kernels of this module, so `close()` waits for it; it is released
   * once its stream has closed and its work is done, so that a module kept for the process does
   * not keep every stream that ever launched one of its kernels (nor what they hold).
   */
  usedOn(lane: MemoryLane): void {
    if (!this.streams.add(lane) || lane.closed) return;
    const streams = new WeakRef(this.streams); // the lane does not keep the module alive
    lane.whenDrained(() => streams.deref()?.delete(lane));
  }

  /** Marks the module closed: unloaded now unless held, its code on other devices closed too. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    unloadWhenCollected.unregister(this);
    if (this.#held === 0) unload(this.module.device.engine, this.native, this.streams);
    for (const other of this.#elsewhere.values()) if (!(other instanceof Promise)) other.close();
    this.#elsewhere.clear();
  }

  /** Keeps the module loaded, even once closed, until {@link letGo}. */
  hold(): void {
    this.#held++;
  }

  /** Ends one {@link hold}; a close asked meanwhile unloads now. */
  letGo(): void {
    if (--this.#held === 0 && this.closed) unload(this.module.device.engine, this.native, this.streams);
  }
}
