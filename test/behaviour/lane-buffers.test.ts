// A lane takes back the pooled buffers it gave: values finishing out of order on many lanes do
// not scatter a lane's memory over the pool, so each lane's values keep using a few buffers (and
// a replayed value finds an executable of its lane that holds them already).
import { beforeAll, expect, it } from 'vitest';
import { count, lastValueFrom, pipe, tap } from 'rxjs';
import { download, framesFrom, launch, replay, upload, type Device, type HostArray } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';
import { lanePools } from '../support/streams.js';

const N = 256;
const LANES = 8;
const VALUES = 600;

describeBackends('pooled buffers by lane', (getDevice) => {
  let device: Device;
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  beforeAll(async () => {
    device = getDevice();
    kernels = await testKernels(device);
  });
  const newPool = lanePools(() => device);

  it.each([false, true])('keeps each lane on a few buffers while values finish out of order (replayed: %s)', async (replayed) => {
    const pool = newPool({ lanes: LANES, inFlight: 2 * LANES });
    const used = new Map<number, Set<bigint>>();
    const wrong: number[] = [];
    const work = pipe(
      upload((frame: HostArray<'u32'>) => frame),
      // Delays that differ by value, so that the lanes finish in no set order.
      launch(kernels.spin, (w) => ({ config: { grid: 1, block: 1 }, args: [BigInt(((w.index * 7919) % 7) * 30_000)] })),
      launch(kernels.invert, (w) => ({ config: { grid: 1, block: N }, args: [w.buffers.input, N] })),
      download((w) => w.buffers.input, 'out'),
    );
    const n = await lastValueFrom(
      framesFrom(pool, { dtype: 'u32', length: N, count: VALUES }, (frame, i) => void frame.data.fill(i)).pipe(
        replayed ? replay(work) : work,
        tap((w) => {
          if (w.results.out[0] !== ~w.index >>> 0 || w.results.out[N - 1] !== ~w.index >>> 0) wrong.push(w.index);
          if (w.index < 100) return; // the pool's first values allocate
          const set = used.get(w.lane.index) ?? new Set<bigint>();
          set.add(w.buffers.input.ptr);
          used.set(w.lane.index, set);
        }),
        count(),
      ),
    );
    expect(n).toBe(VALUES);
    expect(wrong).toEqual([]);
    // Two values in flight per lane: its own two buffers, and now and then one taken from another lane.
    const sizes = [...used.values()].map((s) => s.size);
    expect(Math.max(...sizes), `distinct device buffers per lane: ${sizes}`).toBeLessThanOrEqual(4);
    expect(pool.stats.buffersInUse).toBe(0);
  });
});
