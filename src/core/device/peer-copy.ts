// Copies between device memory of two devices: on CUDA a peer copy (direct where the devices have
// peer access, else staged by the driver through host memory); between host devices, which share
// one memory, a plain copy. Either way in the order of the stream it is enqueued on.
import { DeviceArray, type Memory } from '../memory/memory.js';
import type { Command } from '../queue/scheduler.js';
import type { Stream } from './stream.js';

/** Whether a copy from `src` to `dst` goes between two devices' memory. */
export function betweenDevices(dst: Memory, src: Memory): boolean {
  return dst instanceof DeviceArray && src instanceof DeviceArray && dst.device !== src.device;
}

/** The command that copies `bytes` from `src` to `dst`, memory of two devices, on `stream`. */
export function peerCopy(stream: Stream, dst: Memory, src: Memory): Command {
  const [to, from, bytes] = [dst.ptr, src.ptr, dst.byteLength];
  const [dstDevice, srcDevice] = [dst.device, src.device];
  if (!dstDevice.canAccessPeer(srcDevice)) dstDevice.warnStaged(srcDevice);
  return () => stream.native.copyPeer(to, dstDevice.native, from, srcDevice.native, bytes);
}
