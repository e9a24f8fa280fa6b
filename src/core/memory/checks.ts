// The checks every command that takes memory makes: open memory that the device can address,
// and the two sides of a copy alike.
import { rangeError, received, typeError } from '../base/errors.js';
import { isDeviceMemory, isMemory, movedAway, type DeviceMemoryView, type MemoryView } from './memory-view.js';
import type { MemoryDevice } from './owner.js';

/**
 * Checks that `memory` is open memory `device` can address.
 * @throws TypeError for non-memory or closed memory, RangeError for memory of another device.
 */
export function checkMemoryOf(name: string, memory: unknown, device: MemoryDevice, peer?: unknown): asserts memory is MemoryView {
  if (!isMemory(memory)) typeError(name, 'a DeviceArray or HostArray', memory);
  if (memory.allocation.freed) typeError(name, `open memory`, received(`a closed ${memory.constructor.name}`));
  const moved = movedAway(memory);
  if (moved) typeError(name, 'memory whose array is attached', received(moved));
  if (isDeviceMemory(memory) && memory.allocation.device !== device && !peerOf(memory, peer, device))
    rangeError(name, `memory of ${device}`, received(`memory of ${memory.allocation.device}`));
}

/** Whether `memory`, of another device, is the peer side of a copy whose other side `peer` is of `device`. */
function peerOf(memory: DeviceMemoryView, peer: unknown, device: MemoryDevice): boolean {
  return isDeviceMemory(peer) && peer.allocation.device === device && memory.allocation.device.backend === device.backend;
}

/**
 * `command`, for memory work on `memory` that may wait in a queue: where one of them is a
 * registered array, the command checks again when it reaches the driver that its buffer is still
 * there (moved away meanwhile by code that ignores its untransferable mark, the work is refused:
 * a TypeError to the stream's `error` event or the pipeline, and nothing reaches the driver).
 */
export function inPlaceWhenRun<C extends () => unknown>(command: C, dst: MemoryView, src?: MemoryView): C {
  if (dst.allocation.userArray === undefined && src?.allocation.userArray === undefined) return command;
  return (() => {
    checkStillInPlace(dst, src);
    return command();
  }) as C;
}

/** The check {@link inPlaceWhenRun} makes, for a command that runs without a closure of its own. */
export function checkStillInPlace(dst: MemoryView, src?: MemoryView): void {
  if (dst.allocation.userArray !== undefined) checkMemoryOf('dst', dst, dst.allocation.device);
  if (src?.allocation.userArray !== undefined) checkMemoryOf('src', src, src.allocation.device);
}

/**
 * Checks the two sides of a copy on `device`: both open, of the same element type and
 * byte length (a copy is never a silent reinterpretation). With `acrossDevices`, one side may be
 * device memory of another device of its backend when the other is device memory of `device`
 * (a peer copy).
 */
export function checkCopy(dst: unknown, src: unknown, device: MemoryDevice, acrossDevices = false): asserts dst is MemoryView {
  checkMemoryOf('dst', dst, device, acrossDevices ? src : undefined);
  checkMemoryOf('src', src, device, acrossDevices ? dst : undefined);
  if (src.dtype !== dst.dtype)
    typeError('src', `memory of ${dst.dtype}, as \`dst\` is`, received(`a ${src.constructor.name} of ${src.dtype}`));
  if (src.byteLength !== dst.byteLength)
    rangeError('src', `${dst.byteLength} bytes, as \`dst\` is`, received(`${src.byteLength} bytes`));
  checkApart(dst, src);
}

/**
 * Refuses a copy whose two sides share bytes: the host device would give memmove's result and a
 * GPU an undefined one. Only views of one allocation can share bytes (two allocations never do,
 * and the driver refuses to register memory twice); the message gives both byte ranges, from the
 * allocation's start.
 * @throws RangeError naming `src`.
 */
export function checkApart(dst: MemoryView, src: MemoryView): void {
  if (src.allocation !== dst.allocation || dst.byteLength === 0) return;
  const [from, to] = [Number(src.ptr - src.allocation.ptr), Number(dst.ptr - dst.allocation.ptr)];
  const bytes = dst.byteLength;
  if (from >= to + bytes || to >= from + bytes) return;
  rangeError('src', `memory apart from \`dst\` (bytes [${to}, ${to + bytes}) of its allocation)`, received(`bytes [${from}, ${from + bytes}) of the same allocation, which overlap them`));
}
