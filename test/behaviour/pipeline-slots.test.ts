// Typed pipeline slots: the buffers and results that operators attach are typed through the
// pipeline (checked by `npm test`'s pretest, which type-checks this file), and hold at run time
// what their types say.
import { expect, expectTypeOf, it } from 'vitest';
import { firstValueFrom, map, range, toArray } from 'rxjs';
import {
  Builtins, completed, download, enqueue, fanOut, host, launch, onStreams, upload,
  type DeviceArray, type Device, type Work,
} from '../../src/index.js';
import { describeBackends } from '../support/backends.js';

const N = 256;
const config = { grid: 1, block: N };
const rgba = (i: number) => Uint32Array.from({ length: N }, (_, j) => (i + j) * 0x010101);

describeBackends('typed pipeline slots', (getDevice) => {
  const toGray = async (device: Device) => {
    const module = await device.compile(`
      extern "C" __global__ void to_gray(const unsigned* rgba, unsigned char* gray, unsigned n) {
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) gray[i] = rgba[i] & 255;
      }`);
    return module.kernel('to_gray', ['ptr<u32>', 'ptr<u8>', 'u32'], {
      cpu: (_, [px, gray, n]) => {
        for (let i = 0; i < n; i++) gray[i] = px[i]! & 255;
      },
    });
  };

  it('types the named output of a launch whose arguments are given once, and it holds that type', async () => {
    const device = getDevice();
    const kernel = await toGray(device);
    const results = await firstValueFrom(
      range(0, 4).pipe(
        map((i) => ({ i, pixels: rgba(i) })),
        onStreams(device, { lanes: 2 }),
        upload((frame) => frame.pixels),
        launch(kernel, config, [
          (w) => {
            expectTypeOf(w.buffers.input).toEqualTypeOf<DeviceArray<'u32'>>();
            // @ts-expect-error: no slot named gray before this launch makes it
            void w.buffers.gray;
            return w.buffers.input;
          },
          (w) => w.device('u8', N, 'gray'),
          N,
        ]),
        host((w) => expectTypeOf(w.buffers.gray).toEqualTypeOf<DeviceArray<'u8'>>()),
        download((w) => w.buffers.gray, 'gray'),
        completed(),
        toArray(),
      ),
    );
    const w = results[0]!;
    expectTypeOf(w.buffers).toEqualTypeOf<{ readonly input: DeviceArray<'u32'>; readonly gray: DeviceArray<'u8'> }>();
    expect(results.map((w) => w.value.i).sort()).toEqual([0, 1, 2, 3]);
    for (const w of results) {
      expect(w.buffers.gray.dtype).toBe('u8');
      expect([...w.results.gray]).toEqual([...rgba(w.value.i)].map((p) => p & 255));
    }
  });

  it('refuses, at compile time, an argument given once of the wrong type', () => {
    const check = (kernel: Awaited<ReturnType<typeof toGray>>) => [
      // @ts-expect-error: a u8 array where the kernel reads u32
      launch(kernel, config, [(w: Work<number>) => w.device('u8', N), (w: Work<number>) => w.device('u8', N), N]),
      // @ts-expect-error: a string where the kernel takes a u32
      launch(kernel, config, [(w: Work<number>) => w.device('u32', N), (w: Work<number>) => w.device('u8', N), 'n']),
    ];
    expect(typeof check).toBe('function');
  });

  it('types an uploaded array, a named output of a launch and its download, and they hold those types', async () => {
    const device = getDevice();
    const kernel = await toGray(device);
    const results = await firstValueFrom(
      range(0, 4).pipe(
        map((i) => ({ i, pixels: rgba(i) })),
        onStreams(device, { lanes: 2 }),
        upload((frame) => frame.pixels),
        launch(kernel, (w) => {
          expectTypeOf(w.buffers.input).toEqualTypeOf<DeviceArray<'u32'>>();
          // @ts-expect-error: no slot named gray before this launch makes it
          void w.buffers.gray;
          return { config, args: [w.buffers.input, w.device('u8', N, 'gray'), N] };
        }),
        host((w) => expectTypeOf(w.buffers.gray).toEqualTypeOf<DeviceArray<'u8'>>()),
        download((w) => w.buffers.gray, 'gray'),
        completed(),
        toArray(),
      ),
    );
    const w = results[0]!;
    expectTypeOf(w.buffers).toEqualTypeOf<{ readonly input: DeviceArray<'u32'>; readonly gray: DeviceArray<'u8'> }>();
    expectTypeOf(w.results).toEqualTypeOf<{ readonly gray: Uint8Array }>();
    expectTypeOf(w.value).toEqualTypeOf<{ i: number; pixels: Uint32Array<ArrayBuffer> }>();
    for (const w of results) {
      expect([w.buffers.input.dtype, w.buffers.gray.dtype]).toEqual(['u32', 'u8']);
      expect(w.results.gray).toBeInstanceOf(Uint8Array);
      expect([...w.results.gray]).toEqual([...rgba(w.value.i)].map((p) => p & 255));
    }
  });

  it('types every named array among the arguments of one launch', async () => {
    const device = getDevice();
    const module = await device.compile(`
      extern "C" __global__ void split(const unsigned* px, unsigned char* low, float* high, unsigned n) {
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) { low[i] = px[i] & 255; high[i] = px[i] >> 8; }
      }`);
    const split = module.kernel('split', ['ptr<u32>', 'ptr<u8>', 'ptr<f32>', 'u32'], {
      cpu: (_, [px, low, high, n]) => {
        for (let i = 0; i < n; i++) [low[i], high[i]] = [px[i]! & 255, px[i]! >>> 8];
      },
    });
    const [w] = await firstValueFrom(
      range(0, 1).pipe(
        map(() => Uint32Array.from({ length: N }, (_, j) => j * 257)),
        onStreams(device),
        upload((px) => px),
        launch(split, (w) => ({ config, args: [w.buffers.input, w.device('u8', N, 'low'), w.device('f32', N, 'high'), N] })),
        download((w) => w.buffers.low, 'low'),
        download((w) => w.buffers.high, 'high'),
        toArray(),
      ),
    );
    expectTypeOf(w!.buffers).toEqualTypeOf<{ readonly input: DeviceArray<'u32'>; readonly low: DeviceArray<'u8'>; readonly high: DeviceArray<'f32'> }>();
    expectTypeOf(w!.results).toEqualTypeOf<{ readonly low: Uint8Array; readonly high: Float32Array }>();
    expect([w!.results.low[3], w!.results.high[3]]).toEqual([3, 3]);
    expect([w!.results.low[255], w!.results.high[255]]).toEqual([(255 * 257) & 255, (255 * 257) >>> 8]);
  });

  it('names slots input and output by default, and replaces a slot given a name again', async () => {
    const device = getDevice();
    const builtins = await Builtins.for(device);
    const [w] = await firstValueFrom(
      range(0, 1).pipe(
        map((i) => new Float32Array(N).fill(i + 2)),
        onStreams(device),
        upload((x) => x),
        upload(() => new Uint32Array(N), 'x'),
        enqueue((w, stream) => {
          const x = w.device('f32', N, 'x');
          builtins.scale(stream, x, w.buffers.input, 3);
          return x;
        }),
        download((w) => w.buffers.x),
        toArray(),
      ),
    );
    expectTypeOf(w!.buffers.x).toEqualTypeOf<DeviceArray<'f32'>>();
    expectTypeOf(w!.results.output).toEqualTypeOf<Float32Array>();
    expect(w!.buffers.x.dtype).toBe('f32');
    expect([...w!.results.output]).toEqual(Array(N).fill(6));
  });

  it('types every name a fanOut branch can return, as every branch runs', async () => {
    const device = getDevice();
    const builtins = await Builtins.for(device);
    const [w] = await firstValueFrom(
      range(0, 1).pipe(
        map(() => Int32Array.from({ length: N }, (_, j) => j)),
        onStreams(device),
        upload((x) => x, 'x'),
        fanOut(2, (w, stream, i) => {
          const out = w.device('i32', N, i === 0 ? 'twice' : 'negated');
          builtins.scale(stream, out, w.buffers.x, i === 0 ? 2 : -1);
          return out;
        }),
        download((w) => w.buffers.twice, 'twice'),
        download((w) => w.buffers.negated, 'negated'),
        toArray(),
      ),
    );
    expectTypeOf(w!.results).toEqualTypeOf<{ readonly twice: Int32Array; readonly negated: Int32Array }>();
    expect([w!.results.twice[5], w!.results.negated[5]]).toEqual([10, -5]);
  });

  it('refuses, at compile time, a slot of another element type where a typed pointer is declared', async () => {
    const device = getDevice();
    const kernel = await toGray(device);
    const error = await firstValueFrom(
      range(0, 1).pipe(
        map(() => new Float32Array(N)),
        onStreams(device),
        upload((x) => x),
        // @ts-expect-error: a DeviceArray<'f32'> where ptr<u32> is declared
        launch(kernel, (w) => ({ config, args: [w.buffers.input, w.device('u8', N, 'gray'), N] })),
      ),
    ).catch((e: unknown) => e);
    expect(String(error)).toContain('Expected `args[0]` to be memory of u32 (ptr<u32>), got a DeviceArray of f32');
  });

  it('still gives a Work<T> to code that names no slots', async () => {
    const device = getDevice();
    const seen: number[] = [];
    const indices = (w: Work<number>) => seen.push(w.index);
    await firstValueFrom(range(0, 3).pipe(onStreams(device), upload(() => new Uint8Array(4)), completed(), map(indices), toArray()));
    expect(seen.sort()).toEqual([0, 1, 2]);
  });
});
