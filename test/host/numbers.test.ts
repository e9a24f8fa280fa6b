// Numbers are checked by one rule for every element type, wherever they go (fills, graph fills,
// kernel arguments): a value the type cannot hold is refused; a float within its type's range is
// rounded to nearest as the GPU rounds it. Limits are named in the messages.
import { describe, expect, it } from 'vitest';
import { Device, fromHalfBits, toHalfBits, type DType } from '../../src/index.js';
import { streamsPerTest } from '../support/streams.js';

const device = Device.host();
const newStream = streamsPerTest(() => device);

/** What a fill of `value` on a 1-element array of `dtype` reads back, or the error that refused it. */
async function filled(dtype: DType, value: number | bigint): Promise<unknown> {
  const stream = newStream();
  const array = stream.alloc(dtype, 1);
  const host = device.allocHost(dtype, 1);
  try {
    stream.fill(array, value as never);
  } catch (error) {
    return error;
  }
  stream.copy(host, array);
  await stream.synchronized();
  return host.data[0];
}

describe('Stream.fill', () => {
  it('refuses a value a float type cannot hold, as it refuses one an integer type cannot', async () => {
    expect(await filled('f32', 1e40)).toEqual(new RangeError("Expected `value` to be a number within f32's range (±3.4028234663852886e+38; beyond it would become infinity), got 1e+40"));
    expect(await filled('f16', 70000)).toEqual(new RangeError("Expected `value` to be a number within f16's range (±65504; beyond it would become infinity), got 70000"));
    expect(await filled('u8', 300)).toEqual(new RangeError('Expected `value` to be an integer 0..255 (u8), got 300'));
    expect(await filled('i32', 1.5)).toEqual(new TypeError('Expected `value` to be an integer -2147483648..2147483647 (i32), got 1.5'));
  });

  it('rounds a float within its range to the nearest value of the type, as the GPU does', async () => {
    expect(await filled('f32', 0.1)).toBe(Math.fround(0.1));
    expect(await filled('f32', 3.4028235e38)).toBe(3.4028234663852886e38); // just past the largest f32, rounded down to it
    expect(await filled('f16', 0.1)).toBe(toHalfBits(0.1));
    expect(fromHalfBits((await filled('f16', 65519)) as number)).toBe(65504);
  });

  it('keeps NaN and the infinities, which every float type holds', async () => {
    expect(await filled('f32', Infinity)).toBe(Infinity);
    expect(await filled('f64', -Infinity)).toBe(-Infinity);
    expect(fromHalfBits((await filled('f16', Infinity)) as number)).toBe(Infinity);
    expect(await filled('f32', NaN)).toBeNaN();
  });
});

describe('Graph.addFill', () => {
  it('refuses what Stream.fill refuses', () => {
    using graph = device.createGraph();
    const stream = newStream();
    const x = stream.alloc('f32', 4);
    expect(() => graph.addFill(x, 1e40)).toThrow(RangeError);
  });
});

describe('kernel arguments', () => {
  it('refuse an f32 or f16 beyond its range, and take one within it', async () => {
    const stream = newStream();
    const module = await device.compile('#include <cuda_fp16.h>\nextern "C" __global__ void floats(float a, __half b) {}', { name: 'floats.cu' });
    const seen: unknown[] = [];
    const kernel = module.kernel('floats', ['f32', 'f16'], { cpu: (_, args) => void seen.push([...args]) });
    expect(() => stream.launch(kernel, { grid: 1, block: 1 }, [1e40, 1])).toThrow(
      new RangeError("Expected `args[0]` to be a number within f32's range (±3.4028234663852886e+38; beyond it would become infinity), got 1e+40"),
    );
    expect(() => stream.launch(kernel, { grid: 1, block: 1 }, [1, 1e6])).toThrow(RangeError);
    stream.launch(kernel, { grid: 1, block: 1 }, [Infinity, 2]);
    await stream.synchronized();
    expect(seen).toEqual([[Infinity, 2]]);
  });
});

describe('limits', () => {
  it('name the byte limit of a device array', () => {
    const stream = newStream();
    expect(() => stream.alloc('u8', 2 ** 60)).toThrow(new RangeError('Expected `length` to be at most 9007199254740991 u8 elements (2^53 − 1 bytes), got 1152921504606847000'));
    expect(() => stream.alloc('f64', 2 ** 51)).toThrow(new RangeError('Expected `length` to be at most 1125899906842623 f64 elements (2^53 − 1 bytes), got 2251799813685248'));
  });

  it('refuse more than 1024 host devices at once, saying so', () => {
    expect(() => Device.hosts(200_000)).toThrow(new RangeError('Expected `count` to be at most 1024 host devices, got 200000'));
    expect(() => Device.hosts(1025)).toThrow(RangeError);
  });
});
