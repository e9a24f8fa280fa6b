// Device arrays (stream-ordered pool memory) and pinned host arrays, with the bookkeeping that
// frees them only after every stream that used them has finished with them.
import { DTYPES, type DType, type TypedArrayOf } from '../base/dtype.js';
import { checkCount, isInstance, rangeError, received, typeError } from '../base/errors.js';
import type { Device } from '../device/device.js';
import type { Stream } from '../device/stream.js';
import { addon } from '../native/addon.js';
import { CACHED_BYTES, sizeClass } from './pinned-cache.js';

/** @internal One allocation, shared by an array and every view of it. */
export abstract class Allocation {
  #last: Stream | undefined;
  #others: Set<Stream> | undefined;
  /** Graphs and executables that hold it (see graph.ts): its free waits until they let go. */
  #held = 0;
  #freeWhenLetGo = false;
  freed = false;
  /** Whether every device can address it (pinned host memory), not only its own. */
  abstract readonly portable: boolean;

  constructor(
    readonly device: Device,
    readonly ptr: bigint,
  ) {}

  /** Notes that work on `stream` uses this memory; cheap when it is the same stream as before. */
  use(stream: Stream): void {
    if (this.#last === stream) return;
    if (this.#last) (this.#others ??= new Set()).add(this.#last);
    this.#others?.delete(stream);
    this.#last = stream;
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

  /** Every stream whose enqueued work may still touch this memory, the latest last. */
  protected streams(): Stream[] {
    const streams = this.#others ? [...this.#others] : [];
    if (this.#last) streams.push(this.#last);
    return streams;
  }

  /**
   * Frees the memory once the work of every stream that used it is done, and once the graphs
   * that hold it let go. Idempotent.
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

/** @internal Device memory from a stream-ordered pool. */
export class DeviceAllocation extends Allocation {
  readonly portable = false;
  /** The one ArrayBuffer over the memory that CPU kernels' views share (host device only). */
  #buffer: ArrayBuffer | undefined;

  constructor(
    device: Device,
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
    return (this.#buffer ??= addon.hostView(this.ptr, this.bytes));
  }

  protected free(): void {
    const streams = this.streams();
    const only = streams.length === 1 ? streams[0]! : undefined;
    const freeOn = (stream: Stream) => () => {
      if (this.#buffer) addon.detachBuffer(this.#buffer);
      stream.native.free(this.ptr);
    };
    // Stream-ordered free: behind the work of the one stream that used it (in its queue, behind
    // queued work too), or on a completion point's stream behind all of them.
    if (only && !only.closed) only.run(freeOn(only));
    else this.device.completionPoints.after(streams, (stream) => stream.run(freeOn(stream)), () => {});
  }
}

class HostAllocation extends Allocation {
  readonly portable = true;

  /**
   * @param cachedSize the block's size class when it is a cached block (pinned-cache.ts), else 0.
   * @param bytes the block's size.
   */
  constructor(
    device: Device,
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
 * held until the memory is unlocked; it is never emptied, as it stays the user's.
 */
class RegisteredAllocation extends Allocation {
  readonly portable = true;

  constructor(
    device: Device,
    ptr: bigint,
    readonly array: ArrayBufferView,
  ) {
    super(device, ptr);
  }

  protected free(): void {
    if (this.array.byteLength === 0) return; // nothing was locked (another array may be at its address)
    const streams = this.streams();
    const unlock = () => this.device.completionPoints.whenQuiet(() => this.device.backend.unregisterHost(this.device.native, this.ptr), streams);
    if (streams.length === 0) unlock();
    else this.device.completionPoints.after(streams, undefined, unlock);
  }
}

const collected = new FinalizationRegistry<Allocation>((allocation) => {
  try {
    allocation.release();
  } catch {
    // The device is gone (process teardown): the driver reclaims the memory with the context.
  }
});

/** Memory that kernels and copies can address: a device array or a pinned host array. */
export abstract class Memory<D extends DType = DType> {
  /** The element type. */
  readonly dtype: D;
  /** Number of elements. */
  readonly length: number;
  /** Size in bytes. */
  readonly byteLength: number;
  /** The address of the first element, for interoperation with other CUDA code. */
  readonly ptr: bigint;
  /** @internal Low and high 32 bits of `ptr`, so a launch packs pointers without BigInt work. */
  readonly lo: number;
  /** @internal */
  readonly hi: number;
  /** @internal */
  readonly allocation: Allocation;

  /** @internal */
  protected constructor(allocation: Allocation, dtype: D, byteOffset: number, length: number) {
    this.allocation = allocation;
    this.dtype = dtype;
    this.length = length;
    this.byteLength = length * DTYPES[dtype].size;
    this.ptr = allocation.ptr + BigInt(byteOffset);
    this.lo = Number(this.ptr & 0xffff_ffffn);
    this.hi = Number(this.ptr >> 32n);
  }

  /** The device whose context owns this memory. */
  get device(): Device {
    return this.allocation.device;
  }

  /** True once the memory has been closed (freeing may still be pending behind enqueued work). */
  get closed(): boolean {
    return this.allocation.freed;
  }

  /** @internal Checks begin/end of a view and returns its byte offset and length. */
  protected range(begin: number, end: number): [number, number] {
    checkCount('begin', begin);
    checkCount('end', end);
    if (end > this.length) rangeError('end', `at most the length ${this.length}`, end);
    if (begin > end) rangeError('begin', `at most \`end\` (${end})`, begin);
    return [begin * DTYPES[this.dtype].size, end - begin];
  }

  /**
   * Frees the memory after the work already enqueued on it completes. On a view, frees the whole
   * allocation it belongs to. Idempotent.
   */
  close(): void {
    collected.unregister(this.allocation);
    this.allocation.release();
  }

  /**
   * @internal {@link close} for memory whose work is known to have finished (a pool's free
   * buffer): a pinned block goes back for reuse at once, not behind a completion point.
   */
  closeIdle(): void {
    collected.unregister(this.allocation);
    this.allocation.release(true);
  }

  /** The same as `close()`, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }
}

/**
 * A typed array in device memory, allocated from the device's stream-ordered pool.
 * Create with {@link Stream.alloc}; free with `close()` (or `using`): the free is stream-ordered,
 * so work already enqueued that reads or writes it completes first.
 */
export class DeviceArray<D extends DType = DType> extends Memory<D> {
  readonly #root: DeviceArray<D> | undefined;
  readonly #byteOffset: number;

  /** @internal Use {@link Stream.alloc}. */
  constructor(allocation: Allocation, dtype: D, byteOffset: number, length: number, root?: DeviceArray<D>) {
    super(allocation, dtype, byteOffset, length);
    this.#root = root;
    this.#byteOffset = byteOffset;
  }

  /** @internal */
  static allocate<D extends DType>(stream: Stream, dtype: D, length: number): DeviceArray<D> {
    const bytes = Math.max(1, length) * DTYPES[dtype].size;
    const allocation = new DeviceAllocation(stream.device, stream.native.alloc(bytes), bytes);
    allocation.use(stream);
    const array = new DeviceArray(allocation, dtype, 0, length);
    collected.register(array, allocation, allocation);
    return array;
  }

  /**
   * A view of elements `begin` (inclusive) to `end` (exclusive), sharing this memory.
   * @throws RangeError when the range is outside the array.
   */
  subarray(begin = 0, end = this.length): DeviceArray<D> {
    const [offset, length] = this.range(begin, end);
    return new DeviceArray(this.allocation, this.dtype, this.#byteOffset + offset, length, this.#root ?? this);
  }
}

/**
 * A typed array in pinned (page-locked) host memory, which the device can copy from and to
 * asynchronously. `data` is a real TypedArray over that memory. Create with
 * {@link Device.allocHost}; `close()` frees it once the work that uses it has completed, and empties
 * `data`. Arrays of up to 1 MiB live in blocks kept for reuse (see pinned-cache.ts): up to 16 MiB
 * of free ones for good, those past that a second. A larger one is kept a second for the next
 * array of its size (pinning takes milliseconds). A block nobody reused is freed once the device's
 * known work is done, on a worker thread, as the driver's free waits for the whole device.
 */
export class HostArray<D extends DType = DType> extends Memory<D> {
  /** The elements, readable and writable from JavaScript (f16 as raw bit patterns). */
  readonly data: TypedArrayOf[D];

  /** @internal Use {@link Device.allocHost}; `byteOffset` from the allocation's address. */
  constructor(allocation: Allocation, dtype: D, data: TypedArrayOf[D], byteOffset = data.byteOffset) {
    super(allocation, dtype, byteOffset, data.length);
    this.data = data;
  }

  /** @internal */
  static allocate<D extends DType>(device: Device, dtype: D, length: number): HostArray<D> {
    const bytes = Math.max(1, length) * DTYPES[dtype].size;
    const cachedSize = bytes <= CACHED_BYTES ? sizeClass(bytes) : 0;
    const { ptr, buffer } = HostArray.#block(device, cachedSize || bytes, cachedSize > 0);
    const allocation = new HostAllocation(device, ptr, new WeakRef(buffer), cachedSize, cachedSize || bytes);
    // Freed when the buffer itself is collected: only then can no TypedArray reach the memory.
    collected.register(buffer, allocation, allocation);
    return new HostArray(allocation, dtype, new DTYPES[dtype].Array(buffer, 0, length));
  }

  /** True when this is an array of the user's that {@link Device.registerHost} page-locked. */
  get registered(): boolean {
    return this.allocation instanceof RegisteredAllocation;
  }

  /**
   * @internal Page-locks the memory of `data`, an array of the user's, and wraps it: `data` is
   * the user's array itself.
   */
  static register<D extends DType>(device: Device, dtype: D, data: TypedArrayOf[D]): HostArray<D> {
    const ptr = addon.hostAddress(data);
    if (data.byteLength > 0) device.backend.registerHost(device.native, ptr, data.byteLength);
    const allocation = new RegisteredAllocation(device, ptr, data);
    const array = new HostArray(allocation, dtype, data, 0);
    collected.register(array, allocation, allocation);
    return array;
  }

  /** A cached or kept block when one is free, else a new allocation; zeroed either way. */
  static #block(device: Device, bytes: number, cached: boolean): { ptr: bigint; buffer: ArrayBuffer } {
    const reused = cached ? device.pinnedCache.take(bytes) : device.pinnedCache.takeLarge(bytes);
    const block = reused === undefined ? device.backend.allocHost(device.native, bytes) : { ptr: reused, buffer: addon.hostView(reused, bytes) };
    new Uint8Array(block.buffer).fill(0);
    return block;
  }

  /**
   * A view of elements `begin` (inclusive) to `end` (exclusive), sharing this memory.
   * @throws RangeError when the range is outside the array.
   */
  subarray(begin = 0, end = this.length): HostArray<D> {
    const [offset, length] = this.range(begin, end);
    const view = new DTYPES[this.dtype].Array(this.data.buffer, this.data.byteOffset + offset, length);
    return new HostArray(this.allocation, this.dtype, view, Number(this.ptr - this.allocation.ptr) + offset);
  }
}

/**
 * @internal Checks that `memory` is open memory `device` can address.
 * @throws TypeError for non-memory or closed memory, RangeError for memory of another device.
 */
export function checkMemoryOf(name: string, memory: unknown, device: Device, peer?: unknown): asserts memory is Memory {
  if (!isInstance(memory, Memory)) typeError(name, 'a DeviceArray or HostArray', memory);
  if (memory.closed) typeError(name, `open memory`, received(`a closed ${memory.constructor.name}`));
  if (memory instanceof DeviceArray && memory.device !== device && !peerOf(memory, peer, device))
    rangeError(name, `memory of ${device}`, received(`memory of ${memory.device}`));
}

/** Whether `memory`, of another device, is the peer side of a copy whose other side `peer` is of `device`. */
function peerOf(memory: DeviceArray, peer: unknown, device: Device): boolean {
  return peer instanceof DeviceArray && peer.device === device && memory.device.backend === device.backend;
}

/**
 * @internal Checks the two sides of a copy on `device`: both open, of the same element type and
 * byte length (a copy is never a silent reinterpretation). With `acrossDevices`, one side may be
 * device memory of another device of its backend when the other is device memory of `device`
 * (a peer copy).
 */
export function checkCopy(dst: unknown, src: unknown, device: Device, acrossDevices = false): asserts dst is Memory {
  checkMemoryOf('dst', dst, device, acrossDevices ? src : undefined);
  checkMemoryOf('src', src, device, acrossDevices ? dst : undefined);
  if (src.dtype !== dst.dtype)
    typeError('src', `memory of ${dst.dtype}, as \`dst\` is`, received(`a ${src.constructor.name} of ${src.dtype}`));
  if (src.byteLength !== dst.byteLength)
    rangeError('src', `${dst.byteLength} bytes, as \`dst\` is`, received(`${src.byteLength} bytes`));
}

