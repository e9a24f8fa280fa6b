// Memory safety of kernels on the host device and of launch arguments: views of freed device
// memory are emptied, arguments are read at launch, and a CPU kernel that throws is reported.
import { afterEach, beforeAll, expect, it } from 'vitest';
import { firstValueFrom, range, toArray } from 'rxjs';
import {
  PipelineError, download, launch, onStreams,
  type Device, type HostStepContext, type Kernel,
} from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { heldStep, lanePools, streamsPerTest } from '../support/streams.js';
import { testKernels, unluckyKernel } from '../support/kernels.js';

type Store = Kernel<readonly ['ptr', 'u32']>;
const one = { grid: 1, block: 1 };

describeBackends('launch arguments', (getDevice) => {
  let device: Device;
  let store: Store;
  beforeAll(async () => {
    device = getDevice();
    ({ store } = await testKernels(device));
  });
  const stream = streamsPerTest(() => device);

  for (const queued of [false, true]) {
    it(`are what the kernel sees though the array changes after launch() (${queued ? 'queued' : 'direct'} stream)`, async () => {
      const s = stream();
      const [a, b] = [device.allocHost('u32', 1), device.allocHost('u32', 1)];
      let release = () => {};
      const started = new Promise<void>((ran) => {
        if (!queued) return ran();
        s.hostLaunch(() => new Promise<void>((r) => ((release = r), ran())));
      });
      expect(s.engine.immediate).toBe(!queued);
      const args: [typeof a, number] = [a, 7];
      s.launch(store, one, args);
      args[0] = b;
      args[1] = 9;
      await started;
      release();
      await s.synchronized();
      expect([a.data[0], b.data[0]]).toEqual([7, 0]);
    });
  }
});

describeBackends('struct launch arguments', (getDevice) => {
  const stream = streamsPerTest(() => getDevice());
  const SOURCE = 'struct Pair { unsigned a, b; };\nextern "C" __global__ void pair(unsigned* x, Pair p) { x[0] = p.a * 10 + p.b; }';

  for (const queued of [false, true]) {
    it(`are the bytes they held at launch() though the array changes after (${queued ? 'queued' : 'direct'} stream)`, async () => {
      const device = getDevice();
      const module = await device.compile(SOURCE);
      const pair = module.kernel('pair', ['ptr<u32>', { struct: 8, align: 4 }], {
        cpu: (_, [x, p]) => {
          const v = ArrayBuffer.isView(p) ? new Uint32Array(p.buffer, p.byteOffset, 2) : new Uint32Array(p, 0, 2);
          x[0] = v[0]! * 10 + v[1]!;
        },
      });
      const s = stream();
      const held = queued ? heldStep(s) : undefined;
      const [x, y] = [device.allocHost('u32', 1), device.allocHost('u32', 1)];
      const bytes = new Uint32Array([1, 2]);
      s.launch(pair, one, [x, bytes]);
      bytes.set([7, 8]);
      s.launch(pair, one, [y, bytes]);
      bytes.set([5, 5]);
      (await held)?.();
      await s.synchronized();
      expect([x.data[0], y.data[0]]).toEqual([12, 78]);
    });
  }
});

describeBackends('launch arguments read twice', (getDevice, backend) => {
  it.skipIf(backend === 'cuda')('never hand a CPU kernel memory other than what was checked (direct and queued)', async () => {
    const device = getDevice();
    const seen: number[] = [];
    const module = await device.compile('extern "C" __global__ void peek(unsigned* x) {}');
    const peek = module.kernel('peek', ['ptr<u32>'], { cpu: (_, [x]) => void seen.push(x.length) });
    const s = device.createStream();
    const errors: unknown[] = [];
    s.on('error', (e) => void errors.push(e));
    const good = s.alloc('u32', 4);
    const freed = s.alloc('u32', 1 << 20);
    freed.close();
    /** An argument array that answers `good` to the first read and freed memory after. */
    const twoFaced = () => {
      let reads = 0;
      return Object.defineProperty([undefined], 0, { get: () => (reads++ === 0 ? good : freed) }) as unknown as [typeof good];
    };
    // A CPU kernel's launch reads its arguments once, into the launch's context, and packs and
    // runs that copy: what the kernel gets is what was checked.
    s.launch(peek, one, twoFaced());
    const held = heldStep(s);
    s.launch(peek, one, twoFaced());
    (await held)(); // the second launch waited in the lane's queue behind the step until now
    await s.synchronized();
    expect(seen).toEqual([4, 4]); // the checked array, never the freed one
    expect(errors).toEqual([]);
    s.close();
  });
});

describeBackends('CPU kernels that throw', (getDevice, backend) => {
  let device: Device;
  let thrower: Kernel<readonly ['ptr<u32>', 'u32']>;
  let store: Store;
  beforeAll(async () => {
    device = getDevice();
    ({ store } = await testKernels(device));
    thrower = await unluckyKernel(device);
  });
  const newPool = lanePools(() => device, afterEach);

  it.skipIf(backend === 'cuda')('reach a plain stream\'s error event, naming the launch, and the stream goes on', async () => {
    const s = device.createStream();
    const errors: [unknown, HostStepContext][] = [];
    s.on('error', (e, c) => void errors.push([e, c]));
    const x = device.allocHost('u32', 1);
    s.launch(thrower, one, [x, 13]);
    s.launch(store, one, [x, 5]);
    await s.synchronized();
    s.close();
    expect(x.data[0]).toBe(5);
    expect(errors).toEqual([[new Error('unlucky'), { kind: 'launch', name: 'fails' }]]);
  });

  it.skipIf(backend === 'cuda')('reach the subscriber as a PipelineError naming launch(...), with no value emitted after', async () => {
    const pool = newPool({ lanes: 1 });
    const emitted: number[] = [];
    const error = await firstValueFrom(
      range(10, 6).pipe(
        onStreams(pool),
        launch(thrower, (w) => ({ config: one, args: [w.device('u32', 1, 'x'), w.value] })),
        download((w) => w.buffers.x, 'x'),
        toArray(),
      ),
      { defaultValue: [] },
    ).then((values) => values.forEach((w) => emitted.push(w.results.x[0]!)), (e: unknown) => e);
    expect(error).toBeInstanceOf(PipelineError);
    expect([(error as PipelineError).operator, (error as PipelineError).index]).toEqual(['launch(fails)', 3]);
    expect(((error as PipelineError).cause as Error).message).toBe('unlucky');
    expect(emitted).toEqual([]);
  });
});

describeBackends('views of device memory given to CPU kernels', (getDevice, backend) => {
  let device: Device;
  let keep: Kernel<readonly ['ptr<f32>']>;
  const kept: Float32Array[] = [];
  beforeAll(async () => {
    device = getDevice();
    const module = await device.compile('extern "C" __global__ void keep(float* x) { x[0] = 1; }');
    keep = module.kernel('keep', ['ptr<f32>'], { cpu: (_, [x]) => void kept.push(x) });
  });

  it.skipIf(backend === 'cuda')('are emptied when the array is freed, views of subarrays too', async () => {
    const s = device.createStream();
    const array = s.alloc('f32', 64);
    s.launch(keep, one, [array]);
    s.launch(keep, one, [array.subarray(16, 32)]);
    await s.synchronized();
    const [whole, part] = kept.splice(0);
    expect([whole!.length, part!.length]).toEqual([64, 16]);
    whole![0] = 1; // usable while the array is
    array.close();
    await s.synchronized();
    expect([whole!.length, whole!.byteLength, part!.length]).toEqual([0, 0, 0]);
    whole![0] = 42; // out of bounds now: ignored, not written into freed memory
    expect(whole![0]).toBeUndefined();
    s.close();
  });

  it.skipIf(backend === 'cuda')('stay usable until the free reaches the stream, behind the work before it', async () => {
    const s = device.createStream();
    const array = s.alloc('f32', 4);
    let release!: () => void;
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let seen = -1;
    const slow = (await device.compile('extern "C" __global__ void slow(float* x) {}')).kernel('slow', ['ptr<f32>'], {
      cpu: async (_, [x]) => {
        await new Promise<void>((r) => ((release = r), started()));
        x[1] = 3;
        seen = x.length;
      },
    });
    s.launch(slow, one, [array]);
    array.close(); // stream-ordered: behind the kernel that still uses it
    await running;
    release();
    await s.synchronized();
    expect(seen).toBe(4);
    s.close();
  });

  it.skipIf(backend === 'cuda')('cost one buffer per allocation, however many launches', async () => {
    const s = device.createStream();
    const array = s.alloc('f32', 8);
    for (let i = 0; i < 1000; i++) s.launch(keep, one, [array]);
    await s.synchronized();
    const views = kept.splice(0);
    expect(new Set(views.map((v) => v.buffer)).size).toBe(1);
    array.close();
    s.close();
  });
});

describeBackends('memory objects', (getDevice) => {
  let device: Device;
  let store: Store;
  beforeAll(async () => {
    device = getDevice();
    ({ store } = await testKernels(device));
  });
  const stream = streamsPerTest(() => device);

  it('are frozen: the address and length a launch or copy reads, and the prototype, stay as made', async () => {
    const s = stream();
    const x = s.alloc('u32', 4);
    const h = device.allocHost('u32', 4);
    for (const memory of [x, h, x.subarray(1, 3), h.subarray(1, 3)]) {
      expect(Object.isFrozen(memory)).toBe(true);
      expect(() => ((memory as { byteLength: number }).byteLength = 1 << 30)).toThrow(TypeError);
      expect(() => ((memory as unknown as { lo: number }).lo = 0x1000)).toThrow(TypeError);
      expect(() => Object.defineProperty(memory, 'closed', { value: false })).toThrow(TypeError);
      expect(() => Object.setPrototypeOf(memory, Object.prototype)).toThrow(TypeError);
      expect(memory.byteLength).toBe(memory.length * 4);
    }
    s.fill(x, 5);
    s.copy(h, x);
    await s.synchronized();
    expect([...h.data]).toEqual([5, 5, 5, 5]);
  });

  it('refuses closed memory by its allocation, whatever its class prototype says of `closed`', async () => {
    const s = stream();
    const [x, h] = [s.alloc('u32', 4), device.allocHost('u32', 4)];
    x.close();
    h.close();
    const closed = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Object.getPrototypeOf(x)), 'closed')!;
    const memoryPrototype = Object.getPrototypeOf(Object.getPrototypeOf(x));
    Object.defineProperty(memoryPrototype, 'closed', { get: () => false, configurable: true });
    try {
      expect(x.closed).toBe(false); // the lie
      expect(() => s.fill(x, 1)).toThrow(/Expected `dst` to be open memory, got a closed DeviceArray/);
      expect(() => s.copy(x, h)).toThrow(/to be open memory, got a closed/);
      expect(() => s.launch(store, one, [h, 1])).toThrow(/Expected `args\[0\]` to be open memory, got a closed HostArray/);
    } finally {
      Object.defineProperty(memoryPrototype, 'closed', closed);
    }
    expect(x.closed).toBe(true);
    await s.synchronized();
  });
});
