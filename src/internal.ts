// rxcuda/internal: the one entry point below the public API, for rxcuda's own benchmarks. It
// gives what they measure apart from the public API, and promises no stability: nothing here is
// for users.
import type { Device } from './core/device/device.js';
import type { Stream } from './core/device/stream.js';
import { DeviceArray } from './core/memory/memory.js';
import { Kernel, type Signature } from './core/kernels/kernel.js';
import { LaunchConfig } from './core/kernels/launch-config.js';
import type { Module } from './core/kernels/module.js';

export { expectCompletion } from './core/native/completions.js';

/**
 * Enqueues the completion road's notification for `id` on `stream` alone, past rxcuda's queue: the
 * floor that bench/completion sets a completion point against.
 */
export function notifyAlone(stream: Stream, id: number): void {
  stream.lane.native.notify(id, 0);
}

/**
 * A launch of a kernel with `signature` through a native launcher that does nothing, on a stream
 * and with memory that stand in for a device's: bench/launch-path times the JavaScript of a
 * launch with it (`kernel.launchOn(stream, config, args)`), with no GPU.
 */
export function standInLaunch(signature: Signature, args: (array: DeviceArray<'f32'>) => readonly unknown[]) {
  const properties = {
    name: 'stand-in', maxThreadsPerBlock: 1024, maxBlockX: 1024, maxBlockY: 1024, maxBlockZ: 64, maxGridX: 2 ** 31 - 1,
    maxGridY: 65535, maxGridZ: 65535, sharedMemoryPerBlockOptin: 232448, cooperativeLaunch: 1, clusterLaunch: 1,
  };
  const device = { properties, checkUsable() {}, fail(error: unknown) { throw error; } } as unknown as Device;
  const native = { paramInfo: () => null, bind: () => () => {} };
  const module = { device, closed: false, usedOn() {} } as unknown as Module;
  const kernel = new Kernel(module, 'k', native as never, signature);
  const faults = { fail(error: unknown): never { throw error; } };
  const lane = { immediate: true, recorder: undefined, lo: 1, hi: 0, faults, checkOpen() {}, noteSubmitted() {} };
  const stream = { device, lane } as unknown as Stream;
  const allocation = { device, ptr: 0x7f00_0000_1000n, freed: false, portable: false, use() {} };
  const array = new DeviceArray(allocation as never, 'f32', 0, 16);
  return { kernel, stream, config: new LaunchConfig({ grid: 1, block: 32 }), args: args(array) };
}

/**
 * A kernel of `module` whose launches go through the whole launch path and then do nothing: no
 * driver call, no CPU implementation. bench/study/per-value.mjs runs pipelines of it on the host
 * device, so that what it times there is rxcuda's own work per value, as a GPU's launches would
 * leave it, and not the host device's CPU kernels.
 */
export function nullKernel<const S extends Signature>(module: Module, name: string, signature: S): Kernel<S> {
  const native = {
    handle: () => 0n,
    paramInfo: () => null,
    attributes: () => ({}),
    setAttribute() {},
    occupancy: () => 1,
    suggestBlockSize: () => ({ minGridSize: 1, blockSize: 256 }),
    bind: () => () => {},
  };
  return new Kernel(module, name, native as never, signature);
}
