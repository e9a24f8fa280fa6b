// The world the entry-point fuzzers call into, per device: a stream and a closed one, the test
// kernels, arrays of each kind, events, a lane pool; what a refusal may not move (the streams'
// command counts, the kernels' runs, the pool's lanes); and a sentinel that checks the stream
// still gives exact results.
import type { Device, DeviceArray, HostArray, LanePool, Stream } from '../../src/index.js';
import { LanePool as Pool } from '../../src/index.js';
import type { FuzzEnvironment } from './fuzz-harness.js';
import { testKernels } from './kernels.js';

export type Kernels = Awaited<ReturnType<typeof testKernels>>;

export interface FuzzWorld extends FuzzEnvironment {
  readonly device: Device;
  readonly stream: Stream;
  readonly closedStream: Stream;
  readonly kernels: Kernels;
  /** 64 u32 and f32 on the device, 16 u32 in pinned memory, a closed device array. */
  readonly u32: DeviceArray<'u32'>;
  readonly u32b: DeviceArray<'u32'>;
  readonly f32: DeviceArray<'f32'>;
  readonly f64: DeviceArray<'f64'>;
  readonly hostU32: HostArray<'u32'>;
  readonly closedU32: DeviceArray<'u32'>;
  readonly pool: LanePool;
  /** What `array` (of u32) holds once the stream's work so far is done. */
  read(array: DeviceArray<'u32'>): Promise<number[]>;
  /** What `array` (of f32 or f64) holds once the stream's work so far is done. */
  readFloat(array: DeviceArray<'f32'> | DeviceArray<'f64'>): Promise<number[]>;
  close(): void;
}

/** Throws naming `what` unless `got` equals `want` element by element. */
export function same(what: string, got: readonly unknown[], want: readonly unknown[]): void {
  if (got.length !== want.length || got.some((v, i) => !Object.is(v, want[i])))
    throw new Error(`${what}: got [${got.slice(0, 8).join(', ')}${got.length > 8 ? ', …' : ''}] (${got.length}), expected [${want.slice(0, 8).join(', ')}${want.length > 8 ? ', …' : ''}] (${want.length})`);
}

export async function fuzzWorld(device: Device): Promise<FuzzWorld> {
  const stream = device.createStream({ nonBlocking: true });
  const closedStream = device.createStream();
  closedStream.close();
  const kernels = await testKernels(device);
  let kernelRuns = 0;
  // The kernels the fuzzers launch count their runs (a refused launch must not run one).
  const counting = kernels.module.kernel('store', ['ptr<u32>', 'u32'], { cpu: (_, [p, v]) => void ((p[0] = v), kernelRuns++) });
  const world = { kernels: { ...kernels, store: counting } } as unknown as { kernels: Kernels };
  const u32 = stream.alloc('u32', 64), u32b = stream.alloc('u32', 64), f32 = stream.alloc('f32', 64), f64 = stream.alloc('f64', 64);
  const hostU32 = device.allocHost('u32', 16);
  const closedU32 = stream.alloc('u32', 16);
  closedU32.close();
  const staging = device.allocHost('u32', 64), stagingF32 = device.allocHost('f32', 64), stagingF64 = device.allocHost('f64', 64);
  const pool = new Pool(device, { lanes: 2 });
  let round = 0;
  const read = async (array: DeviceArray<'u32'>) => {
    const host = array.length <= 64 ? staging.subarray(0, array.length) : device.allocHost('u32', array.length);
    stream.copy(host, array);
    await stream.synchronized();
    const values = [...host.data];
    if (host.length > 64) host.close();
    return values;
  };
  const readFloat = async (array: DeviceArray<'f32'> | DeviceArray<'f64'>) => {
    const host = array.dtype === 'f32' ? stagingF32.subarray(0, array.length) : stagingF64.subarray(0, array.length);
    stream.copy(host as never, array as never);
    await stream.synchronized();
    return [...host.data];
  };
  return Object.assign(world, {
    device, stream, closedStream, u32, u32b, f32, f64, hostU32, closedU32, pool, read, readFloat,
    counters: () => [stream.engine.given, kernelRuns, device.engine.liveLanes().length],
    async sentinel() {
      const value = Math.imul(0x9e3779b9, ++round) >>> 0, other = (value ^ 0xffff) >>> 0;
      stream.fill(u32b, value);
      stream.launch(counting, { grid: 1, block: 1 }, [u32b.subarray(3, 4), other]);
      const want = Array.from({ length: 64 }, (_, i) => (i === 3 ? other : value));
      same('the sentinel after the calls', await read(u32b), want);
    },
    close() {
      pool.close();
      stream.close();
      for (const m of [u32, u32b, f32, f64, hostU32, staging, stagingF32, stagingF64]) m.close();
    },
  });
}
