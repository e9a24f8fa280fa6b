// Several devices at once: copies and event waits between them, lanes over all of them, kernels
// loaded per device, and fanOut branches on another device.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { firstValueFrom, map, range, toArray } from 'rxjs';
import { LanePool, completed, currentLaunch, download, enqueue, fanOut, host, launch, onStreams, upload, type Device, type Stream } from '../../src/index.js';
import { describeDeviceSets } from '../support/device-sets.js';
import { testKernels } from '../support/kernels.js';

const N = 1024;
const grid = { grid: 4, block: 256 };
const frame = (i: number) => Uint32Array.from({ length: N }, (_, j) => (i * 7919 + j) >>> 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeDeviceSets('several devices', (getDevices) => {
  let devices: Device[];
  let kernels: Awaited<ReturnType<typeof testKernels>>;
  const streams: Stream[] = [];
  const pools: LanePool[] = [];
  beforeAll(async () => {
    devices = getDevices();
    kernels = await testKernels(devices[0]!);
  });
  afterAll(() => {
    streams.forEach((s) => s.close());
    pools.forEach((p) => p.close());
  });
  const streamOn = (device: Device) => {
    const s = device.createStream({ nonBlocking: true });
    streams.push(s);
    return s;
  };
  const pool = (lanesPerDevice: number, inFlight: number) => {
    const p = new LanePool(devices, { lanesPerDevice, inFlight });
    pools.push(p);
    return p;
  };

  it('copies between every pair of devices, enqueued on either one, with exact results', async () => {
    for (const [a, from] of devices.entries())
      for (const [b, to] of devices.entries()) {
        if (from === to) continue;
        const source = streamOn(from), target = streamOn(to);
        const x = source.alloc('u32', N);
        source.fill(x, 1000 * a + b);
        const y = target.alloc('u32', N);
        target.wait(source.record()); // x is written
        // Enqueued on the source's stream for one half of the pairs, on the target's for the other.
        const copier = a < b ? target : source;
        if (copier === source) source.wait(target.record()); // y is allocated
        copier.copy(y, x);
        if (copier === source) target.wait(source.record());
        const back = to.allocHost('u32', N);
        target.copy(back, y);
        await target.synchronized();
        expect([...new Set(back.data)], `${from} → ${to}`).toEqual([1000 * a + b]);
        x.close();
        y.close();
      }
  });

  it('orders a stream after an event of another device, also while its record waits behind a host step', async () => {
    const [first, second] = [streamOn(devices[0]!), streamOn(devices.at(-1)!)];
    const order: string[] = [];
    let release!: () => void;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    first.hostLaunch(() => new Promise<void>((resolve) => {
      release = () => (order.push('first'), resolve());
      started();
    }));
    const word = first.alloc('u32', 1);
    first.fill(word, 42);
    const done = first.record();
    second.wait(done);
    const copy = second.alloc('u32', 1);
    second.copy(copy, word); // a peer copy behind the other device's event
    second.hostLaunch(() => void order.push('second'));
    const out = devices.at(-1)!.allocHost('u32', 1);
    second.copy(out, copy);
    await running; // the step runs once the stream gets to it, however busy the machine
    await sleep(20);
    expect(order).toEqual([]);
    expect(second.query()).toBe(false);
    release();
    await second.synchronized();
    expect(order).toEqual(['first', 'second']);
    expect(out.data[0]).toBe(42);
  });

  it("spreads values over every device, each value's work and memory on its lane's device, within the global bound", async () => {
    const lanes = pool(2, 3 * devices.length);
    const results = await firstValueFrom(
      range(0, 40).pipe(
        map((i) => ({ i, pixels: frame(i) })),
        onStreams(lanes),
        upload((f) => f.pixels, 'pixels'),
        launch(kernels.invert, (w) => ({ config: grid, args: [w.buffers.pixels, N] })),
        launch(kernels.addU32, (w) => ({ config: grid, args: [w.buffers.pixels, w.value.i, N] })),
        download((w) => w.buffers.pixels, 'pixels'),
        toArray(),
      ),
    );
    expect(results.map((w) => w.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    for (const w of results) {
      expect(w.results.pixels, `value ${w.index}`).toEqual(frame(w.value.i).map((v) => ((~v >>> 0) + w.value.i) >>> 0));
      expect(w.buffers.pixels.device).toBe(w.lane.stream.device);
    }
    const perDevice = devices.map((d) => results.filter((w) => w.lane.stream.device === d).length);
    expect(perDevice.every((n) => n > 0), `values per device: ${perDevice}`).toBe(true);
    expect(lanes.stats.maxInFlight).toBeLessThanOrEqual(3 * devices.length);
    expect(lanes.stats.inFlight).toBe(0);
    expect(lanes.stats.buffersInUse).toBe(0);
  });

  it('sends values to the least loaded device: one that holds its values longer gets fewer', async () => {
    const slow = devices[0]!;
    const lanes = pool(1, 2 * devices.length);
    const results = await firstValueFrom(
      range(0, 16 * devices.length).pipe(
        onStreams(lanes),
        host((w) => (w.stream.device === slow ? sleep(25) : sleep(1))),
        completed(),
        toArray(),
      ),
    );
    const perDevice = devices.map((d) => results.filter((w) => w.lane.stream.device === d).length);
    const fastest = Math.min(...perDevice.slice(1));
    expect(perDevice[0]!, `values per device: ${perDevice}`).toBeLessThan(fastest);
  });

  it('takes pooled memory per device and reuses it from value to value', async () => {
    const lanes = pool(1, devices.length);
    const seen = new Map<Device, Set<bigint>>(devices.map((d) => [d, new Set()]));
    await firstValueFrom(
      range(0, 10 * devices.length).pipe(
        map((i) => frame(i)),
        onStreams(lanes),
        upload((f) => f, 'x'),
        host((w) => void seen.get(w.stream.device)!.add(w.buffers.x.ptr)),
        download((w) => w.buffers.x, 'x'),
        toArray(),
      ),
    );
    for (const [device, pointers] of seen) {
      expect(pointers.size, `${device}`).toBeGreaterThan(0);
      expect(pointers.size, `${device}`).toBeLessThanOrEqual(devices.length); // at most the bound in flight
    }
    // A device array and staging up and down per value in flight on a device, at most the bound each.
    expect(lanes.stats.buffersCreated).toBeLessThanOrEqual(3 * devices.length * devices.length);
    expect(lanes.stats.buffersInUse).toBe(0);
  });

  it('launches a kernel of one device on every device, loaded there once', async () => {
    const ran = new Set<Device>();
    const module = await devices[0]!.compile('extern "C" __global__ void add_u32(unsigned* x, unsigned v, unsigned n) { unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += v; }', { name: 'multi.cu' });
    const add = module.kernel('add_u32', ['ptr<u32>', 'u32', 'u32'], {
      cpu: (_, [x, v, n]) => {
        ran.add(currentLaunch().stream.device);
        for (let i = 0; i < n; i++) x[i] = (x[i]! + v) >>> 0;
      },
    });
    const results = await Promise.all(
      devices.map(async (device, d) => {
        const s = streamOn(device);
        const x = s.alloc('u32', N);
        s.fill(x, d);
        s.launch(add, grid, [x, 10, N]);
        s.launch(add, grid, [x, 100, N]);
        const out = device.allocHost('u32', N);
        s.copy(out, x);
        await s.synchronized();
        return [...new Set(out.data)];
      }),
    );
    expect(results).toEqual(devices.map((_, d) => [d + 110]));
    if (devices[0]!.kind === 'host') expect(ran).toEqual(new Set(devices));
    module.close();
  });

  it('runs a fanOut branch on another device and joins it back', async () => {
    const [own, other] = [devices[0]!, devices.at(-1)!];
    const lanes = new LanePool(own, { lanes: 1 });
    pools.push(lanes);
    const results = await firstValueFrom(
      range(0, 6).pipe(
        map((i) => frame(i)),
        onStreams(lanes),
        upload((f) => f, 'x'),
        enqueue((w) => [w.device('u32', N, 'y'), w.device('u32', N, 'z')]),
        fanOut(
          2,
          (w, stream, i) => {
            if (i === 0) return stream.launch(kernels.invert, grid, [w.buffers.z, N]); // z: garbage, inverted
            // On the other device: a copy of x there, inverted, and back into y on the value's device.
            const there = w.deviceOn(stream, 'u32', N, 'there');
            stream.copy(there, w.buffers.x);
            stream.launch(kernels.invert, grid, [there, N]);
            stream.copy(w.buffers.y, there);
            return there;
          },
          { devices: [own, other] },
        ),
        download((w) => w.buffers.y, 'y'),
        toArray(),
      ),
    );
    expect(results).toHaveLength(6);
    for (const w of results) {
      expect(w.buffers.there.device).toBe(other);
      expect(w.buffers.y.device).toBe(own);
      expect(w.results.y, `value ${w.index}`).toEqual(frame(w.index).map((v) => ~v >>> 0));
    }
  });
});
