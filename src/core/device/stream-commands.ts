// The device work a stream is given besides kernels and events: copies, fills, native host
// functions and allocations, checked, then recorded while the stream records or handed to its lane.
import { byteLengthOf } from '../base/buffers.js';
import { DTYPES } from '../base/dtype.js';
import { typeError } from '../base/errors.js';
import { checkScalar, scalarBits } from '../base/scalar.js';
import { checkCopy, checkMemoryOf, checkStillInPlace, inPlaceWhenRun } from '../memory/checks.js';
import { MAIN_THREAD_COPY_BYTES, copyHost, copySmall, type CopyRoad } from '../memory/host-copy.js';
import { isDeviceMemory, isMemory, type HostMemoryView, type MemoryView } from '../memory/memory-view.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import type { Command, Resume } from '../queue/scheduler.js';
import type { MemoryDevice } from '../memory/owner.js';
import type { Recorder } from './recorder.js';
import type { DeviceEngine } from './device-engine.js';

/**
 * See {@link Stream.alloc}: the array `allocate` makes in `lane`'s order, once the lane is open and
 * not recording; a failure to allocate is the lane's fault.
 */
export function allocOn<A>(lane: StreamEngine<Recorder>, allocate: () => A): A {
  lane.checkOpen();
  lane.recorder?.allocation();
  try {
    return allocate();
  } catch (error) {
    lane.faults.fail(error);
  }
}

/** See {@link Stream.copy}. */
export function copyOn(lane: StreamEngine<Recorder>, device: MemoryDevice, dst: MemoryView, src: MemoryView): void {
  checkCopy(dst, src, device, true);
  lane.checkOpen();
  if (lane.recorder) return lane.recorder.copy(dst, src);
  if (betweenDevices(dst, src)) lane.run(inPlaceWhenRun(peerCopy(lane, dst, src), dst, src));
  else lane.runWith(copyNow, dst, src); // a pipeline's values copy twice each: no closure for it
  dst.allocation.use(lane);
  src.allocation.use(lane);
}

/** A copy of one device's (or pinned) memory, as its command runs it. */
function copyNow(lane: StreamEngine, dst: MemoryView, src: MemoryView): void {
  checkStillInPlace(dst, src);
  lane.native.copy(dst.ptr, src.ptr, dst.byteLength);
}

/** See {@link Stream.fill}. */
export function fillOn(lane: StreamEngine<Recorder>, device: MemoryDevice, dst: MemoryView, value: number | bigint): void {
  checkMemoryOf('dst', dst, device);
  checkScalar('value', dst.dtype, value as never);
  lane.checkOpen();
  if (lane.recorder) return lane.recorder.fill(dst, value);
  const [low, high] = scalarBits(dst.dtype, value as never);
  const [ptr, size, length] = [dst.ptr, DTYPES[dst.dtype].size, dst.length];
  if (length > 0) lane.run(inPlaceWhenRun(() => lane.native.fill(ptr, size, length, low, high), dst));
  dst.allocation.use(lane);
}

/** See {@link Stream.launchHostFunction}. */
export function hostFunctionOn(lane: StreamEngine<Recorder>, device: MemoryDevice, fn: bigint, userData: bigint | MemoryView): void {
  if (typeof fn !== 'bigint' || fn <= 0n || fn >= 2n ** 64n) typeError('fn', 'a CUhostFn pointer as a non-zero bigint', fn);
  const memory = isMemory(userData) ? userData : undefined;
  if (memory) checkMemoryOf('userData', memory, device);
  else if (typeof userData !== 'bigint' || userData < 0n || userData >= 2n ** 64n)
    typeError('userData', 'a pointer as a bigint, or memory', userData);
  lane.checkOpen();
  if (lane.recorder) return lane.recorder.hostFunction(fn, userData);
  const data = memory ? memory.ptr : (userData as bigint);
  lane.run(() => lane.native.hostFunction(fn, data));
  memory?.allocation.use(lane);
}

/** Whether a copy from `src` to `dst` goes between two devices' memory. */
function betweenDevices(dst: MemoryView, src: MemoryView): boolean {
  return isDeviceMemory(dst) && isDeviceMemory(src) && dst.allocation.device !== src.allocation.device;
}

/**
 * The command that copies `dst.byteLength` bytes from `src` to `dst`, memory of two devices, on
 * `lane`: on CUDA a peer copy (direct where the devices have peer access, else staged by the
 * driver through host memory); between host devices, which share one memory, a plain copy.
 */
function peerCopy(lane: StreamEngine, dst: MemoryView, src: MemoryView): Command {
  const [to, from, bytes] = [dst.ptr, src.ptr, dst.byteLength];
  const [dstEngine, srcEngine] = [dst.allocation.device as DeviceEngine, src.allocation.device as DeviceEngine]; // memory's device is a device's engine
  if (!dstEngine.reachesPeer(srcEngine)) dstEngine.peers.warnStaged(dstEngine.face, srcEngine.face);
  return () => lane.native.copyPeer(to, dstEngine.native, from, srcEngine.native, bytes);
}

/**
 * Copies the caller's `data` into the pinned `staging` array for a device copy that
 * follows on `stream`: on native threads off the main thread (on the main thread when it is
 * small), while that device copy, and the stream's later work, wait in the lane's queue (never on
 * the device) until the bytes are there. `onWorkers` hears that native threads have copied them
 (a small copy, made at once, is not heard of).
 */
export function stageIn(stream: { readonly engine: StreamEngine }, staging: HostMemoryView, data: ArrayBufferView, onWorkers?: () => void): void {
  if (byteLengthOf(data) <= MAIN_THREAD_COPY_BYTES) return copySmall(staging.data, data); // done now: nothing waits
  stageOffThread(stream.engine, staging, data, onWorkers);
}

/** {@link stageIn} of a large copy: a function of its own, so that a small one allocates no context. */
function stageOffThread(lane: StreamEngine, staging: HostMemoryView, data: ArrayBufferView, onWorkers: (() => void) | undefined): void {
  let resume: Resume | undefined;
  let copied = false;
  let road: CopyRoad | undefined; // still undefined when a small copy is done at once
  road = copyHost(staging.data, data, () => {
    copied = true;
    if (road) onWorkers?.();
    resume?.();
  });
  if (!copied) lane.run(() => (copied ? undefined : (r) => void (resume = r)));
}
