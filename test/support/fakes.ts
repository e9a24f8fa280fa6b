// Stand-ins for the native objects a Kernel launches through, so that argument packing and
// validation are tested on machines without a GPU: `launches` records each header and argument
// block exactly as the native launch would read it.
import type { DType, Signature } from '../../src/index.js';
import type { Device, Module, Stream } from '../../src/index.js';
import { makeKernel } from '../../src/core/api/kernel.js';
import { wrapDeviceArray, wrapHostArray } from '../../src/core/api/memory.js';

export const properties = {
  name: 'Fake GPU', totalMemory: 2 ** 34, major: 9, minor: 0, multiprocessors: 4,
  maxThreadsPerBlock: 1024, maxBlockX: 1024, maxBlockY: 1024, maxBlockZ: 64,
  maxGridX: 2 ** 31 - 1, maxGridY: 65535, maxGridZ: 65535,
  sharedMemoryPerBlock: 49152, sharedMemoryPerBlockOptin: 232448, warpSize: 32,
  cooperativeLaunch: 1, clusterLaunch: 1, memoryPools: 1,
};

export function fakeDevice(ordinal = 0): Device {
  const device = { ordinal, properties, toString: () => `device ${ordinal}` };
  const engine = { face: device, properties, checkUsable() {}, fail(e: unknown) { throw e; }, toString: () => `device ${ordinal}` };
  return Object.assign(device, { engine }) as unknown as Device;
}

export interface FakeLaunch {
  header: Uint32Array;
  stream: bigint;
  args: DataView;
}

export function fakeKernel<S extends Signature>(signature: S, options: { device?: Device; paramSizes?: number[] } = {}) {
  const device = options.device ?? fakeDevice();
  const launches: FakeLaunch[] = [];
  let block: ArrayBuffer | undefined;
  let offsets: Uint32Array | undefined;
  const native = {
    paramInfo: () => options.paramSizes?.map((size, i) => ({ offset: i * 8, size })) ?? null,
    // What a GPU kernel without static shared memory reports: 48 KiB of dynamic shared memory.
    attributes: () => ({ maxThreadsPerBlock: 1024, sharedSizeBytes: 0, constSizeBytes: 0, localSizeBytes: 0, numRegs: 8, ptxVersion: 90, binaryVersion: 90, maxDynamicSharedSizeBytes: 49152 }),
    bind(b: ArrayBuffer, o: Uint32Array) {
      block = b;
      offsets = o;
      return () => native.launch();
    },
    launch() {
      const copy = block!.slice(0);
      launches.push({
        header: new Uint32Array(copy, 0, 11),
        stream: new BigUint64Array(copy, 48, 1)[0]!,
        args: new DataView(copy, 64),
      });
    },
  };
  const module = { device, engine: { closed: false, usedOn() {} } } as unknown as Module;
  const kernel = makeKernel(module, 'fake', native as never, signature);
  return { kernel, launches, device, offsets: () => [...offsets!] };
}

export function fakeStream(device: Device, handle = 0x1234_5678_9abcn) {
  let closed = false;
  const lane = {
    immediate: true,
    recorder: undefined,
    noteSubmitted() {},
    lo: Number(handle & 0xffffffffn),
    hi: Number(handle >> 32n),
    faults: { fail(e: unknown) { throw e; } },
    checkOpen() { if (closed) throw new TypeError('Expected `stream` to be open, got a closed Stream'); },
  };
  const stream = { device, engine: lane, close() { closed = true; } };
  return stream as unknown as Stream & { close(): void };
}

export function fakeAllocation(device: Device, ptr: bigint, portable = false) {
  const uses: unknown[] = [];
  return { device: device.engine, ptr, freed: false, portable, uses, use(s: unknown) { uses.push(s); }, release() { this.freed = true; } };
}

export function fakeDeviceArray<D extends DType = 'f32'>(device: Device, ptr = 0x7f00_0000_1000n, length = 16, dtype = 'f32' as D) {
  return wrapDeviceArray(fakeAllocation(device, ptr) as never, dtype, 0, length);
}

export function fakeHostArray(device: Device, length = 4) {
  const data = new Float32Array(length);
  return wrapHostArray(fakeAllocation(device, 0x5000n, true) as never, 'f32', data);
}
