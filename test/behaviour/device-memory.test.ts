// Device memory after a pipeline of 10^4 values (onStreams, upload, launch, download) is back to
// where it was before, within 2 MiB: on a CUDA device, the bytes its memory pool has in use (what
// cuMemAllocAsync hands out; the driver's free memory is reported too); on the host device, the
// bytes malloc has handed out (its device and pinned memory are malloc's), after garbage collection.
import { firstValueFrom, map, range, reduce, tap } from 'rxjs';
import { expect, it } from 'vitest';
import { download, launch, onStreams, upload, type Device } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { gc } from '../support/gc.js';
import { helpers } from '../support/helpers.js';
import { testKernels } from '../support/kernels.js';

const N = 4096; // u32 per value: 16 KiB, uploaded, inverted, downloaded
const MIB = 2 ** 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pipeline over `count` values; resolves with how many results came back right. */
async function pipeline(device: Device, count: number, sample = () => {}): Promise<number> {
  const { invert } = await testKernels(device);
  return firstValueFrom(
    range(0, count).pipe(
      map((i) => Uint32Array.from({ length: N }, (_, j) => i + j)),
      onStreams(device, { lanes: 3, inFlight: 6 }),
      upload((data) => data),
      launch(invert, (w) => ({ config: { grid: 16, block: 256 }, args: [w.buffers.input, N] })),
      download((w) => w.buffers.input),
      tap(sample),
      reduce((right, w) => right + (w.results.output[N - 1] === (~(w.index + N - 1) >>> 0) ? 1 : 0), 0),
    ),
  );
}

/** Samples `inUse` until it stays within 64 KiB for 200 ms (at most `ms`): the frees behind the work are done. */
async function steady(inUse: () => number, ms: number): Promise<number> {
  let last = inUse();
  for (let calm = 0, deadline = performance.now() + ms; calm < 4 && performance.now() < deadline; ) {
    gc();
    await sleep(50);
    const now = inUse();
    calm = Math.abs(now - last) < 64 * 1024 ? calm + 1 : 0;
    last = now;
  }
  return last;
}

/** Samples `inUse` until it is within `slack` of `baseline`, for at most `ms`; the last sample. */
async function settle(inUse: () => number, baseline: number, slack: number, ms: number): Promise<number> {
  let now = inUse();
  for (const deadline = performance.now() + ms; Math.abs(now - baseline) > slack && performance.now() < deadline; now = inUse()) {
    gc();
    await sleep(20);
  }
  return now;
}

describeBackends('device memory after a pipeline of 10^4 values', (getDevice, backend) => {
  // AddressSanitizer's allocator answers mallinfo2 with nothing: the host device is measured without it.
  it.skipIf(backend === 'host' && process.env.RXCUDA_SANITIZER)('is back to its baseline within 2 MiB', async () => {
    const device = getDevice();
    const cuda = backend === 'cuda';
    const pool = () => {
      const bytes = helpers.devicePool(device.ordinal);
      if (typeof bytes === 'string') throw new Error(bytes);
      return bytes;
    };
    const inUse = cuda ? () => pool().used : () => helpers.mallocInUse();
    // The pools give reserved memory back to the driver when the context is synchronized.
    const synchronize = () => {
      if (cuda) expect(helpers.synchronizeContext()).toBe('CUDA_SUCCESS');
    };
    // A first run pins its staging (the pinned cache keeps it) and compiles what it needs.
    expect(await pipeline(device, 100)).toBe(100);
    const baseline = await steady(inUse, 5000);
    synchronize();
    const free = device.memoryInfo().free;
    const started = performance.now();
    let peak = baseline;
    expect(await pipeline(device, 10_000, () => void (peak = Math.max(peak, inUse())))).toBe(10_000);
    const seconds = (performance.now() - started) / 1000;
    const after = await settle(inUse, baseline, 2 * MIB, 5000);
    const mib = (bytes: number) => Number((bytes / MIB).toFixed(2));
    const figures: Record<string, unknown> = { backend, seconds: Number(seconds.toFixed(1)), baselineMiB: mib(baseline), peakKiB: Number(((peak - baseline) / 1024).toFixed(1)), deltaKiB: Number(((after - baseline) / 1024).toFixed(1)) };
    if (cuda) {
      // The driver's free memory is the whole device's, which the other test processes move too:
      // reported, not checked.
      figures.reservedMiB = mib(pool().reserved);
      figures.freeDeltaMiB = mib(device.memoryInfo().free - free);
      synchronize();
      figures.afterSynchronize = { reservedMiB: mib(pool().reserved), freeDeltaMiB: mib(device.memoryInfo().free - free) };
    }
    console.log(`device memory after 10^4 values: ${JSON.stringify(figures)}`);
    // The measure sees the pipeline's memory while it runs (its pools' buffers at least).
    expect(peak - baseline).toBeGreaterThanOrEqual(3 * N * 4);
    expect(Math.abs(after - baseline)).toBeLessThanOrEqual(2 * MIB);
  }, 120_000);
});
