// Allocations: the memory behind an array and its views, with the bookkeeping that frees it only
// after every lane that used it has finished with it, and after the graphs that hold it release it.
import { byteLengthOf } from '../base/buffers.js';
import { addon } from '../native/addon.js';
import type { MemoryDevice, MemoryLane } from './owner.js';
import { UsedLanes } from './used-lanes.js';
import { ownBuffer } from './own-buffers.js';

/** One allocation, shared by an array and every view of it. */
export abstract class Allocation {
  #last: MemoryLane | undefined;
  #others: UsedLanes | undefined;
  /** Graphs and executables that hold it (see graph.ts): its free waits until they release it. */
  #held = 0;
  #freeWhenLetGo = false;
  freed = false;
  /** Whether every device can address it (pinned host memory), not only its own. */
  abstract readonly portable: boolean;
  /**
   * The user's array whose memory this is, for a registered allocation (else undefined), and its
   * bytes when it was registered: memory whose array has fewer now was moved away (user-arrays.ts).
   */
  readonly userArray: ArrayBufferView | undefined = undefined;
  readonly userBytes: number = 0;

  /** Whether this is a registered array's memory whose buffer was detached (or shrunk) since. */
  get moved(): boolean {
    return this.userArray !== undefined && byteLengthOf(this.userArray) < this.userBytes;
  }

  constructor(
    readonly device: MemoryDevice,
    readonly ptr: bigint,
  ) {}

  /** Notes that work on `lane` uses this memory; cheap when it is the same lane as before. */
  use(lane: MemoryLane): void {
    if (this.#last === lane) return;
    if (this.#last) (this.#others ??= new UsedLanes()).add(this.#last);
    this.#others?.delete(lane);
    this.#last = lane;
  }

  /** @internal Keeps the memory allocated, past `close()` too, until {@link letGo}. */
  hold(): void {
    this.#held++;
  }

  /** @internal Ends one {@link hold}; memory closed meanwhile is freed now. */
  letGo(): void {
    if (--this.#held > 0 || !this.#freeWhenLetGo) return;
    this.#freeWhenLetGo = false;
    this.free(false);
  }

  /** Every lane whose enqueued work may still touch this memory, the latest last. */
  protected streams(): MemoryLane[] {
    const streams = this.#others ? [...this.#others] : [];
    if (this.#last) streams.push(this.#last);
    return streams;
  }

  /**
   * Frees the memory once the work of every stream that used it is done, and once the graphs
   * that hold it release it. Idempotent.
   * @param idle the work that used it is known to have finished (seen on the main thread).
   */
  release(idle = false): void {
    if (this.freed) return;
    this.freed = true;
    if (this.#held > 0) this.#freeWhenLetGo = true;
    else this.free(idle);
  }

  /** Frees the memory behind the work of every stream that used it. */
  protected abstract free(idle: boolean): void;
}

/** Device memory from a stream-ordered pool. */
export class DeviceAllocation extends Allocation {
  readonly portable = false;
  /** The one ArrayBuffer over the memory that CPU kernels' views share (host device only). */
  #buffer: ArrayBuffer | undefined;

  constructor(
    device: MemoryDevice,
    ptr: bigint,
    readonly bytes: number,
  ) {
    super(device, ptr);
  }

  /**
   * An ArrayBuffer over the whole allocation, for CPU kernels on the host device: made once, so
   * that views cost no native call, and detached when the free reaches the stream, so that a view
   * a kernel kept empties instead of reaching freed memory.
   */
  hostBuffer(): ArrayBuffer {
    return (this.#buffer ??= ownBuffer(this.device.backend.viewHost(this.ptr, this.bytes)));
  }

  protected free(): void {
    const streams = this.streams();
    const only = streams.length === 1 ? streams[0]! : undefined;
    const freeOn = (lane: MemoryLane) => () => {
      if (this.#buffer) addon.detachBuffer(this.#buffer);
      lane.native.free(this.ptr);
    };
    // MemoryLane-ordered free: behind the work of the one stream that used it (in its queue, behind
    // queued work too), or on a completion point's stream behind all of them.
    if (only && !only.closed) only.run(freeOn(only));
    else this.device.completionPoints.after(streams, (lane) => lane.run(freeOn(lane)), () => {});
  }
}

export class HostAllocation extends Allocation {
  readonly portable = true;

  /**
   * @param cachedSize the block's size class when it is a cached block (pinned-cache.ts), else 0.
   * @param bytes the block's size.
   */
  constructor(
    device: MemoryDevice,
    ptr: bigint,
    readonly buffer: WeakRef<ArrayBuffer>,
    readonly cachedSize: number,
    readonly bytes: number,
  ) {
    super(device, ptr);
  }

  protected free(idle: boolean): void {
    const streams = this.streams();
    if (idle || streams.length === 0) this.#free();
    else this.device.completionPoints.after(streams, undefined, () => this.#free());
  }

  /**
   * Empties every view of the memory, so that no JavaScript reaches it any more, then caches a
   * cached block for the next array of its size class, or keeps a large one a moment for the next
   * array of its size, freed after that once the device's known work is done, on a worker thread
   * (cuMemFreeHost waits for the whole device).
   */
  #free(): void {
    const buffer = this.buffer.deref();
    if (buffer) addon.detachBuffer(buffer);
    if (this.cachedSize) this.device.pinnedCache.give(this.ptr, this.cachedSize);
    else this.device.pinnedCache.keepLarge(this.ptr, this.bytes);
  }
}

/**
 * Memory the user allocated and rxcuda page-locked (cuMemHostRegister). The user's TypedArray is
 * held until the memory is unlocked, its buffer kept in place (see user-arrays.ts); it is never
 * emptied, as it stays the user's.
 */
export class RegisteredAllocation extends Allocation {
  readonly portable = true;
  override readonly userArray: ArrayBufferView;
  override readonly userBytes: number;

  constructor(device: MemoryDevice, ptr: bigint, array: ArrayBufferView) {
    super(device, ptr);
    this.userArray = array;
    this.userBytes = byteLengthOf(array);
  }

  protected free(): void {
    if (this.userBytes === 0) return; // nothing was locked (another array may be at its address)
    const streams = this.streams();
    const unlock = () => this.device.completionPoints.whenQuiet(() => this.device.backend.unregisterHost(this.device.native, this.ptr), streams);
    if (streams.length === 0) unlock();
    else this.device.completionPoints.after(streams, undefined, unlock);
  }
}

/** Frees what an array nobody closed held, once the garbage collector finds nothing reaching it. */
export const collected = new FinalizationRegistry<Allocation>((allocation) => {
  try {
    allocation.release();
  } catch {
    // The device is gone (process teardown): the driver reclaims the memory with the context.
  }
});
