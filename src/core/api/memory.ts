// Device arrays (stream-ordered pool memory) and pinned host arrays: what kernels and copies
// address. Their allocations (memory/allocation.ts) free them behind the work that used them. The
// engines below take them as the views of memory/memory-view.ts, and tell them apart and make them
// through the checks and makers this file gives them as its classes are defined.
import { bufferOf, byteLengthOf, byteOffsetOf, lengthOf } from '../base/buffers.js';
import { DTYPES, type DType, type TypedArrayOf } from '../base/dtype.js';
import { constants } from 'node:buffer';
import { brand, checkCount, rangeError, received, typeError } from '../base/errors.js';
import { addon } from '../native/addon.js';
import { Allocation, DeviceAllocation, HostAllocation, RegisteredAllocation, collected } from '../memory/allocation.js';
import type { MemoryDevice, MemoryLane } from '../memory/owner.js';
import { CACHED_BYTES, sizeClass } from '../memory/pinned-cache.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';
import { markUntransferable } from '../memory/user-arrays.js';
import { ownBuffer } from '../memory/own-buffers.js';
import { defineMemoryClasses, movedAway, type HostMemoryView } from '../memory/memory-view.js';
import type { Device } from './device.js';

/**
 * `close()` for memory whose work is known to have finished (a lane pool's free
 * buffer): a pinned block goes back for reuse at once, not behind a completion point.
 */
export let closeIdle: (memory: Memory) => void;

/**
 * Checks `begin` and `end` of a view of `memory`, which must be open, and returns the view's byte
 * offset and length.
 */
let memoryRange: (memory: Memory, begin: number, end: number) => [number, number];

// Each class's own brand, which the engines ask through memory/memory-view.ts.
let isMemory: (value: object) => value is Memory;
let isDeviceArray: (value: object) => value is DeviceArray;
let isHostArray: (value: object) => value is HostArray;

/**
 * Memory that kernels and copies can address: a device array or a pinned host array. Each is
 * frozen, as rxcuda made it: its fields (the address, the length) cannot be changed, nor others added.
 */
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
  #memory(): void {}

  /** Memory is made by rxcuda: see {@link DeviceArray} and {@link HostArray}. */
  protected constructor(token: ConstructorToken, allocation: Allocation, dtype: D, byteOffset: number, length: number) {
    checkConstructorToken(token, 'memory', 'stream.alloc() or device.allocHost()');
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
    return this.allocation.device.face as Device;
  }

  /** True once the memory has been closed (freeing may still be pending behind enqueued work). */
  get closed(): boolean {
    return this.allocation.freed;
  }

  #range(begin: number, end: number): [number, number] {
    if (this.allocation.freed) closedMemory(this);
    checkCount('begin', begin);
    checkCount('end', end);
    if (end > this.length) rangeError('end', `at most the length ${this.length}`, end);
    if (begin > end) rangeError('begin', `at most \`end\` (${end})`, begin);
    return [begin * DTYPES[this.dtype].size, end - begin];
  }

  /**
   * Frees the memory after the work already enqueued on it completes. On a view, frees the whole
   * allocation it belongs to. Idempotent.
   * @example
   * const x = stream.alloc('f32', n);
   * stream.launch(kernel, config, [x, n]);
   * x.close(); // freed once the launch has run
   */
  close(): void {
    collected.unregister(this.allocation);
    this.allocation.release();
  }

  #closeIdle(): void {
    collected.unregister(this.allocation);
    this.allocation.release(true);
  }

  /**
   * The same as `close()`, for `using`.
   * @example
   * {
   *   using x = stream.alloc('f32', n);
   *   stream.launch(kernel, config, [x, n]);
   * } // freed once the launch has run
   */
  [Symbol.dispose](): void {
    this.close();
  }
  static {
    isMemory = (value): value is Memory => #memory in value;
    brand(this, isMemory);
    closeIdle = (memory) => memory.#closeIdle();
    memoryRange = (memory, begin, end) => memory.#range(begin, end);
  }
}

/** A device array of `length` elements, allocated in `lane`'s order on `device`. */
export let allocateDeviceArray: <D extends DType>(lane: MemoryLane, device: MemoryDevice, dtype: D, length: number) => DeviceArray<D>;

/**
 * A device array over `allocation` as it is (a stand-in's, for the benchmarks and tests).
 */
export let wrapDeviceArray: <D extends DType>(allocation: Allocation, dtype: D, byteOffset: number, length: number) => DeviceArray<D>;

/**
 * A typed array in device memory, allocated from the device's stream-ordered pool.
 * Create with {@link Stream.alloc}; free with `close()` (or `using`): the free is stream-ordered,
 * so work already enqueued that reads or writes it completes first.
 */
export class DeviceArray<D extends DType = DType> extends Memory<D> {
  readonly #root: DeviceArray<D> | undefined;
  readonly #byteOffset: number;

  private constructor(token: ConstructorToken, allocation: Allocation, dtype: D, byteOffset: number, length: number, root?: DeviceArray<D>) {
    checkConstructorToken(token, 'a DeviceArray', 'stream.alloc()');
    super(token, allocation, dtype, byteOffset, length);
    this.#root = root;
    this.#byteOffset = byteOffset;
    Object.freeze(this); // what launches and copies read of it (ptr, lo, hi, byteLength) stays as made
  }

  static #wrap<D extends DType>(allocation: Allocation, dtype: D, byteOffset: number, length: number): DeviceArray<D> {
    return new DeviceArray(CONSTRUCTOR_TOKEN, allocation, dtype, byteOffset, length);
  }

  static #allocate<D extends DType>(lane: MemoryLane, device: MemoryDevice, dtype: D, length: number): DeviceArray<D> {
    const bytes = Math.max(1, length) * DTYPES[dtype].size;
    const allocation = new DeviceAllocation(device, lane.native.alloc(bytes), bytes);
    allocation.use(lane);
    const array = new DeviceArray(CONSTRUCTOR_TOKEN, allocation, dtype, 0, length);
    collected.register(array, allocation, allocation);
    return array;
  }

  /**
   * A view of elements `begin` (inclusive) to `end` (exclusive), sharing this memory.
   * @throws RangeError when the range is outside the array.
   * @example
   * const [left, right] = [x.subarray(0, n / 2), x.subarray(n / 2)];
   * stream.launch(blur, config, [left, n / 2]); // the first half only
   */
  subarray(begin = 0, end = this.length): DeviceArray<D> {
    const [offset, length] = memoryRange(this, begin, end);
    return new DeviceArray(CONSTRUCTOR_TOKEN, this.allocation, this.dtype, this.#byteOffset + offset, length, this.#root ?? this);
  }
  static {
    isDeviceArray = (value): value is DeviceArray => #byteOffset in value;
    allocateDeviceArray = (lane, device, dtype, length) => DeviceArray.#allocate(lane, device, dtype, length);
    wrapDeviceArray = (allocation, dtype, byteOffset, length) => DeviceArray.#wrap(allocation, dtype, byteOffset, length);
  }
}

/** A pinned host array of `length` elements, from `device`'s pinned cache where one fits. */
export let allocateHostArray: <D extends DType>(device: MemoryDevice, dtype: D, length: number) => HostArray<D>;

/**
 * Page-locks the memory of `data`, an array of the user's, and wraps it: `data` is
 * the user's array itself.
 */
export let registerHostArray: <D extends DType>(device: MemoryDevice, dtype: D, data: TypedArrayOf[D]) => HostArray<D>;

/**
 * A pinned array over `allocation` as it is (a stand-in's, for the tests).
 */
export let wrapHostArray: <D extends DType>(allocation: Allocation, dtype: D, data: TypedArrayOf[D]) => HostArray<D>;

/**
 * A host array's `data`, closed or not: what work enqueued before `close()` still uses.
 */
let hostElements: <D extends DType = DType>(array: HostArray<D>) => TypedArrayOf[D];

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
  readonly #elements: TypedArrayOf[D];

  /** `byteOffset` from the allocation's address. */
  private constructor(token: ConstructorToken, allocation: Allocation, dtype: D, data: TypedArrayOf[D], byteOffset?: number) {
    checkConstructorToken(token, 'a HostArray', 'device.allocHost() or device.registerHost()');
    super(token, allocation, dtype, byteOffset ?? byteOffsetOf(data), lengthOf(data));
    this.#elements = data;
    Object.freeze(this); // what launches and copies read of it (ptr, lo, hi, byteLength) stays as made
  }

  /**
   * The elements, readable and writable from JavaScript (f16 as raw bit patterns).
   * @throws TypeError once the array is closed (``Expected `array` to be an open HostArray, got a
   * closed HostArray``): its memory is freed, or, registered, no longer the device's to read.
   */
  get data(): TypedArrayOf[D] {
    if (this.allocation.freed) closedMemory(this);
    return this.#elements;
  }

  static #wrap<D extends DType>(allocation: Allocation, dtype: D, data: TypedArrayOf[D]): HostArray<D> {
    return new HostArray(CONSTRUCTOR_TOKEN, allocation, dtype, data);
  }

  static #allocate<D extends DType>(device: MemoryDevice, dtype: D, length: number): HostArray<D> {
    const bytes = Math.max(1, length) * DTYPES[dtype].size;
    const cachedSize = bytes <= CACHED_BYTES ? sizeClass(bytes) : 0;
    const { ptr, buffer } = HostArray.#block(device, cachedSize || bytes, cachedSize > 0);
    const allocation = new HostAllocation(device, ptr, new WeakRef(buffer), cachedSize, cachedSize || bytes);
    // Freed when the buffer itself is collected: only then can no TypedArray reach the memory.
    collected.register(buffer, allocation, allocation);
    return new HostArray(CONSTRUCTOR_TOKEN, allocation, dtype, new DTYPES[dtype].Array(buffer, 0, length));
  }

  /** True when this is an array of the user's that {@link Device.registerHost} page-locked. */
  get registered(): boolean {
    return this.allocation instanceof RegisteredAllocation;
  }

  static #register<D extends DType>(device: MemoryDevice, dtype: D, data: TypedArrayOf[D]): HostArray<D> {
    markUntransferable('data', data);
    const ptr = addon.hostAddress(data);
    const bytes = byteLengthOf(data); // its slot's: a getter of the user's may say anything
    if (bytes > 0) device.backend.registerHost(device.native, ptr, bytes);
    const allocation = new RegisteredAllocation(device, ptr, data);
    const array = new HostArray(CONSTRUCTOR_TOKEN, allocation, dtype, data, 0);
    collected.register(array, allocation, allocation);
    return array;
  }

  /** A cached or kept block when one is free, else a new allocation; zeroed either way. */
  static #block(device: MemoryDevice, bytes: number, cached: boolean): { ptr: bigint; buffer: ArrayBuffer } {
    const reused = cached ? device.pinnedCache.take(bytes) : device.pinnedCache.takeLarge(bytes);
    const block = reused === undefined ? device.backend.allocHost(device.native, bytes) : { ptr: reused, buffer: device.backend.viewHost(reused, bytes) };
    ownBuffer(block.buffer);
    new Uint8Array(block.buffer).fill(0);
    return block;
  }

  /**
   * A view of elements `begin` (inclusive) to `end` (exclusive), sharing this memory.
   * @throws RangeError when the range is outside the array.
   * @example
   * stream.copy(x.subarray(0, 256), input.subarray(0, 256)); // the first 256 elements
   */
  subarray(begin = 0, end = this.length): HostArray<D> {
    if (this.closed) closedMemory(this);
    const moved = movedAway(this);
    if (moved) typeError('array', 'a HostArray whose array is attached', received(moved));
    const [offset, length] = memoryRange(this, begin, end);
    const view = new DTYPES[this.dtype].Array(bufferOf(this.#elements), byteOffsetOf(this.#elements) + offset, length);
    return new HostArray(CONSTRUCTOR_TOKEN, this.allocation, this.dtype, view, Number(this.ptr - this.allocation.ptr) + offset);
  }
  static {
    isHostArray = (value): value is HostArray => #elements in value;
    allocateHostArray = (device, dtype, length) => HostArray.#allocate(device, dtype, length);
    registerHostArray = (device, dtype, data) => HostArray.#register(device, dtype, data);
    wrapHostArray = (allocation, dtype, data) => HostArray.#wrap(allocation, dtype, data);
    hostElements = (array) => array.#elements;
  }
}

// The engines' checks and makers of memory (memory/memory-view.ts).
defineMemoryClasses({
  isMemory,
  isDevice: isDeviceArray,
  isHost: isHostArray,
  elements: <D extends DType>(array: HostMemoryView<D>) => hostElements(array as unknown as HostArray<D>),
  allocateDevice: allocateDeviceArray,
  allocateHost: allocateHostArray,
});

/** The refusal of closed memory's elements or views (``…, got a closed HostArray``). */
function closedMemory(memory: Memory): never {
  const kind = memory instanceof HostArray ? 'HostArray' : 'DeviceArray';
  typeError('array', `an open ${kind}`, received(`a closed ${kind}`));
}

/**
 * Checks the length of a pinned array of `dtype`: an integer ≥ 0 whose bytes fit the largest
 * buffer Node.js makes (`buffer.constants.MAX_LENGTH`).
 */
export function checkHostLength(dtype: DType, length: unknown): void {
  checkLength(dtype, length, constants.MAX_LENGTH, `${constants.MAX_LENGTH} bytes, the largest buffer Node.js makes`);
}

/**
 * Checks the length of a device array of `dtype`: an integer ≥ 0 whose bytes a number counts
 * exactly (2^53 − 1 at most; the device's memory refuses less, when it is allocated).
 */
export function checkDeviceLength(dtype: DType, length: unknown): void {
  checkLength(dtype, length, Number.MAX_SAFE_INTEGER, '2^53 − 1 bytes');
}

function checkLength(dtype: DType, length: unknown, maxBytes: number, limit: string): void {
  if (typeof length !== 'number' || !Number.isInteger(length)) checkCount('length', length); // the TypeError
  const most = Math.floor(maxBytes / DTYPES[dtype].size);
  if ((length as number) > most) rangeError('length', `at most ${most} ${dtype} elements (${limit})`, length);
  checkCount('length', length);
}
