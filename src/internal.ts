// rxcuda/internal: the one entry point below the public API, for rxcuda's own benchmarks. It
// gives what they measure apart from the public API, and promises no stability: nothing here is
// for users.
import { Device, deviceOver } from './core/api/device.js';
import { Stream } from './core/api/stream.js';
import { DeviceArray, wrapDeviceArray } from './core/api/memory.js';
import { blasOver } from './core/api/blas.js';
import { fftOver } from './core/api/fft.js';
import { workspacesOf } from './core/libraries/workspaces.js';
import { Kernel, type Signature, makeKernel } from './core/api/kernel.js';
import { LaunchConfig } from './core/kernels/launch-config.js';
import type { Module } from './core/api/module.js';
import type { Backend } from './core/native/types.js';

import { addon } from './core/native/addon.js';

export { expectCompletion } from './core/native/completions.js';

/**
 * The workspace that cuBLAS and cuFFT calls on `stream` are given now (from the device's
 * stream-ordered memory pool, after the stream's first library call on a GPU), or undefined:
 * bench/study/gemm-f16 hands it to the C++ twin, to compare the library's work with rxcuda's
 * workspace and with its own.
 */
export function libraryWorkspace(stream: Stream): DeviceArray<'u8'> | undefined {
  return workspacesOf(stream.device.engine).of(stream.engine) as DeviceArray<'u8'> | undefined; // made by api/memory.ts's DeviceArray
}

/**
 * The environment's device threads, and how many times a main-thread driver call waited for one
 * to submit what it held: a pipeline's values should cause none (bench/small-frames prints it).
 */
export function submissionCounts(): { threads: number; waits: number } {
  return addon.submissionCounts();
}

/**
 * Fixes the busy pause of the addon's watcher between two passes over watched events in which
 * none completed, in nanoseconds (0: none), in place of its default (a sixteenth of the time the
 * last events took, at most 20 µs); a negative value brings the default back. For measuring what
 * its driver queries cost other threads' driver calls.
 */
export function setWatcherPause(nanoseconds: number): void {
  addon.setWatcherPause(nanoseconds);
}

/**
 * How a pipeline's values are watched on a GPU, for the watches that start from now on (a value
 * waiting in its lane's queue takes the kind of watch set when its watch starts): `events` (an event
 * recorded behind each, which the watcher queries; the default) or `words` (a word of each lane's
 * that the stream writes behind each, which the watcher reads). For measuring the two against
 * each other. A TypeError for anything else.
 */
export { setWatchRoad, type WatchRoad } from './core/device/value-watches.js';

/**
 * Enqueues the completion queue's notification for `id` on `stream` alone, past rxcuda's queue: the
 * floor that bench/completion sets a completion point against.
 */
export function notifyAlone(stream: Stream, id: number): void {
  stream.engine.native.notify(id, 0);
}

/**
 * A launch of a kernel with `signature` through a native launcher that does nothing, on a stream
 * and with memory that stand in for a device's: bench/launch-path times the JavaScript of a
 * launch with it (`kernel.engine.launchOn(stream, config, args)`), with no GPU.
 */
export function standInLaunch(signature: Signature, args: (array: DeviceArray<'f32'>) => readonly unknown[]) {
  const properties = {
    name: 'stand-in', maxThreadsPerBlock: 1024, maxBlockX: 1024, maxBlockY: 1024, maxBlockZ: 64, maxGridX: 2 ** 31 - 1,
    maxGridY: 65535, maxGridZ: 65535, sharedMemoryPerBlockOptin: 232448, cooperativeLaunch: 1, clusterLaunch: 1,
  };
  const engine = { properties, checkUsable() {}, fail(error: unknown) { throw error; }, toString: () => 'the stand-in device' };
  const device = { properties, engine, toString: () => 'the stand-in device' } as unknown as Device;
  const native = { paramInfo: () => null, bind: () => () => {} };
  const module = { device, engine: { closed: false, usedOn() {} } } as unknown as Module;
  const kernel = makeKernel(module, 'k', native as never, signature);
  const faults = { fail(error: unknown): never { throw error; } };
  const lane = { id: 1, immediate: true, recorder: undefined, lo: 1, hi: 0, faults, checkOpen() {}, noteSubmitted() {} };
  const stream = { device, engine: lane } as unknown as Stream;
  const allocation = { device: engine, ptr: 0x7f00_0000_1000n, freed: false, portable: false, use() {} };
  const array = wrapDeviceArray(allocation as never, 'f32', 0, 16);
  return { kernel, stream, config: new LaunchConfig({ grid: 1, block: 32 }), args: args(array) };
}

/**
 * cuBLAS and cuFFT through natives that do nothing, on a Device, Stream and arrays made as rxcuda
 * makes them, over a backend whose natives do nothing either: bench/study/library-path times the
 * JavaScript of a library call with it (`blas.gemm(stream, a, b, c, shape)`,
 * `fft.c2c(stream, x, y, shape)`), with no GPU. The device is of kind `cuda`, so that calls take
 * the stream's workspace as they do on a GPU.
 * `ready` settles once the FFT plans asked for so far are made (at once, but through a Promise,
 * as cuFFT's are).
 */
export function standInLibraries(elements: number) {
  let next = 0x7f00_0000_0000n;
  const backend = {
    kind: 'cuda',
    Device: class {
      properties() { return { name: 'stand-in' }; }
    },
    Stream: class {
      handle() { return 0x7f00_0000_1000n; }
      priority() { return 0; }
      flags() { return 0; }
      alloc(bytes: number) { return (next += BigInt(bytes + 256)); }
      free() {}
    },
  } as unknown as Backend;
  const device = deviceOver(backend);
  const stream = device.createStream();
  const array = () => stream.alloc('f32', elements);
  const made: Promise<unknown>[] = [];
  const plans = {
    plan: () => {
      const promise = Promise.resolve([0, 1 << 16, 0] as [number, number, number]);
      made.push(promise);
      return [made.length - 1, promise] as [number, Promise<[number, number, number]>];
    },
    exec: () => 0,
    bind: () => () => 0,
    destroyPlan() {},
  };
  return {
    blas: blasOver(device, { gemm: () => 0, bind: () => () => 0 }, 32 << 20),
    fft: fftOver(device, plans),
    stream,
    arrays: [array(), array(), array()] as const,
    ready: () => Promise.all(made),
  };
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
  return makeKernel(module, name, native as never, signature);
}
