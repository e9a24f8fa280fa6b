// Memory as the engines know it. The public classes (Memory, DeviceArray, HostArray) live in
// core/api/memory.ts, above the engines, because `memory.device` is the public Device; the
// engines that launch, copy and check memory name it by the views below, and tell the kinds apart
// and make the few arrays of their own (a stream's spin word, a loop's report ring, a library's
// workspace) through the MemoryClasses that api/memory.ts defines when its classes are.
import { byteLengthOf, typedArrayName } from '../base/buffers.js';
import type { DType, TypedArrayOf } from '../base/dtype.js';
import type { Allocation } from './allocation.js';
import type { MemoryDevice, MemoryLane } from './owner.js';
import { whyMovable } from './user-arrays.js';

/** A device array or a pinned host array, as the engines read it (the public Memory). */
export interface MemoryView<D extends DType = DType> {
  readonly dtype: D;
  readonly length: number;
  readonly byteLength: number;
  readonly ptr: bigint;
  /** Low and high 32 bits of `ptr`: what a launch packs. */
  readonly lo: number;
  readonly hi: number;
  /** Its allocation, whose `freed` the checks read (not `closed`, a getter of the class's prototype). */
  readonly allocation: Allocation;
  readonly closed: boolean;
  close(): void;
}

/** Stream-ordered device memory (the public DeviceArray). */
export interface DeviceMemoryView<D extends DType = DType> extends MemoryView<D> {
  subarray(begin?: number, end?: number): DeviceMemoryView<D>;
}

/** Pinned host memory with its elements (the public HostArray). */
export interface HostMemoryView<D extends DType = DType> extends MemoryView<D> {
  readonly data: TypedArrayOf[D];
  readonly registered: boolean;
  subarray(begin?: number, end?: number): HostMemoryView<D>;
}

/**
 * What the engines need of the memory classes: checks by their private brands (a Proxy, or an
 * object made from a class's prototype, is none of them; memory is frozen, so its prototype stays
 * its class's), and makers.
 */
export interface MemoryClasses {
  /** Whether `value` is a Memory; every launch's pointer arguments ask. */
  isMemory(value: object): value is MemoryView;
  /** Whether `value` is a DeviceArray. */
  isDevice(value: object): value is DeviceMemoryView;
  /** Whether `value` is a HostArray. */
  isHost(value: object): value is HostMemoryView;
  /** A host array's elements, closed or not: what work enqueued before `close()` still uses. */
  elements<D extends DType>(array: HostMemoryView<D>): TypedArrayOf[D];
  /** A device array of `length` elements, allocated in `lane`'s order on `device`. */
  allocateDevice<D extends DType>(lane: MemoryLane, device: MemoryDevice, dtype: D, length: number): DeviceMemoryView<D>;
  /** A pinned host array of `length` elements, from `device`'s pinned cache where one fits. */
  allocateHost<D extends DType>(device: MemoryDevice, dtype: D, length: number): HostMemoryView<D>;
}

const undefinedYet = ((): never => {
  throw new Error('rxcuda: the memory classes are not defined yet (core/api/memory.ts)');
}) as never;

/**
 * The memory classes, as {@link defineMemoryClasses} gave them: api/memory.ts does when its
 * classes are defined, which is before any code that makes or takes memory can run (the public
 * Device and Stream import it). A constant object, so that its reads are plain property reads.
 */
export const memoryClasses: MemoryClasses = {
  isMemory: undefinedYet,
  isDevice: undefinedYet,
  isHost: undefinedYet,
  elements: undefinedYet,
  allocateDevice: undefinedYet,
  allocateHost: undefinedYet,
};

let defined = false;

/** Gives the engines the memory classes: api/memory.ts calls it once, as its classes are defined. */
export function defineMemoryClasses(classes: MemoryClasses): void {
  if (defined) throw new Error('rxcuda: the memory classes are defined once (core/api/memory.ts)');
  defined = true;
  Object.assign(memoryClasses, classes);
}

/** Whether `value` is memory (a DeviceArray or HostArray), by its brand: a Proxy of one is not. */
export function isMemory(value: unknown): value is MemoryView {
  return typeof value === 'object' && value !== null && memoryClasses.isMemory(value);
}

/** Whether `value` is a DeviceArray, by its brand. */
export function isDeviceMemory(value: unknown): value is DeviceMemoryView {
  return typeof value === 'object' && value !== null && memoryClasses.isDevice(value);
}

/** Whether `value` is a HostArray, by its brand. */
export function isHostMemory(value: unknown): value is HostMemoryView {
  return typeof value === 'object' && value !== null && memoryClasses.isHost(value);
}

/**
 * Whether `device`'s work may address `memory` now (open, and the device's own or pinned),
 * noting that `lane` uses it: the launch packer's check of a pointer argument.
 */
export function usableOn(memory: MemoryView, device: MemoryDevice, lane: MemoryLane | undefined): boolean {
  const allocation = memory.allocation;
  if (allocation.freed || (allocation.device !== device && !allocation.portable)) return false;
  const user = allocation.userArray;
  if (user !== undefined && byteLengthOf(user) < allocation.userBytes) return false; // moved away
  if (lane !== undefined) allocation.use(lane);
  return true;
}

/**
 * For a registered array whose buffer was detached since (by code that ignores its
 * untransferable mark): how refusals name it (`a HostArray over a detached Uint32Array`); else
 * undefined.
 */
export function movedAway(memory: MemoryView): string | undefined {
  const allocation = memory.allocation;
  const user = allocation.userArray;
  if (user === undefined || byteLengthOf(user) >= allocation.userBytes) return undefined;
  return `a ${memory.constructor.name} over ${whyMovable(user) ?? `a ${typedArrayName(user) ?? 'DataView'} shorter than it was`}`;
}
