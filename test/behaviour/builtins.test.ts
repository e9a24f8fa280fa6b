// Built-in kernels against results computed here independently, on each backend.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Builtins, type BuiltinDType, type Device, type Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';

const N = 10_000;
/** The device's rounding (f32) or wrapping (integers) of an exact result. */
const exact: Record<BuiltinDType, (x: number | bigint) => number> = {
  i32: (x) => Number(BigInt.asIntN(32, BigInt(x))),
  u32: (x) => Number(BigInt.asUintN(32, BigInt(x))),
  f32: (x) => Math.fround(Number(x)),
  f64: (x) => Number(x),
};
const samples: Record<BuiltinDType, (i: number) => number> = {
  i32: (i) => ((i * 2654435761) | 0) >> 8,
  u32: (i) => (i * 2654435761) >>> 0,
  f32: (i) => Math.fround(Math.sin(i) * 1000),
  f64: (i) => Math.cos(i) * 1e6,
};
const isInt = (t: BuiltinDType) => t === 'i32' || t === 'u32';
const mul = (t: BuiltinDType, a: number, b: number) => (isInt(t) ? exact[t](BigInt(a) * BigInt(b)) : exact[t](a * b));

describeBackends('Builtins', (getDevice) => {
  let device: Device;
  let s: Stream;
  let builtins: Builtins;
  beforeAll(async () => {
    device = getDevice();
    s = device.createStream();
    builtins = await Builtins.for(device);
  });
  afterAll(() => s.close());

  async function readBack<T extends BuiltinDType>(t: T, array: Parameters<Stream['copy']>[1]) {
    const host = device.allocHost(t, array.length);
    s.copy(host, array);
    await s.synchronized();
    return [...host.data] as number[];
  }

  function upload<T extends BuiltinDType>(t: T, values: number[]) {
    const host = device.allocHost(t, values.length);
    host.data.set(values);
    const array = s.alloc(t, values.length);
    s.copy(array, host);
    return array;
  }

  for (const t of ['i32', 'u32', 'f32', 'f64'] as const) {
    const x = Array.from({ length: N }, (_, i) => samples[t](i));
    const y = Array.from({ length: N }, (_, i) => samples[t](i + 7));
    const a = t === 'u32' ? 3 : t === 'i32' ? -3 : 2.5;

    it(`fills, counts and transforms ${t} elementwise exactly`, async () => {
      const out = s.alloc(t, N);
      builtins.fill(s, out, a);
      expect(await readBack(t, out)).toEqual(Array(N).fill(exact[t](a)));
      builtins.iota(s, out, 5, a);
      expect(await readBack(t, out)).toEqual(x.map((_, i) => (isInt(t) ? exact[t](5n + BigInt(i) * BigInt(a)) : exact[t](5 + exact[t](exact[t](i) * a)))));
      const dx = upload(t, x);
      const dy = upload(t, y);
      builtins.scale(s, out, dx, a);
      expect(await readBack(t, out)).toEqual(x.map((v) => mul(t, a, v)));
      builtins.add(s, out, dx, dy);
      expect(await readBack(t, out)).toEqual(x.map((v, i) => (isInt(t) ? exact[t](BigInt(v) + BigInt(y[i]!)) : exact[t](v + y[i]!))));
      builtins.mul(s, out, dx, dy);
      expect(await readBack(t, out)).toEqual(x.map((v, i) => mul(t, v, y[i]!)));
      builtins.axpy(s, a, dx, dy);
      expect(await readBack(t, dy)).toEqual(x.map((v, i) => (isInt(t) ? exact[t](BigInt(mul(t, a, v)) + BigInt(y[i]!)) : exact[t](mul(t, a, v) + y[i]!))));
    });

    it(`transposes ${t} matrices`, async () => {
      const [rows, cols] = [37, 53];
      const src = upload(t, x.slice(0, rows * cols));
      const dst = s.alloc(t, rows * cols);
      builtins.transpose(s, dst, src, rows, cols);
      const out = await readBack(t, dst);
      for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) expect(out[c * rows + r]).toBe(x[r * cols + c]);
    });

    it(`sums ${t} ${isInt(t) ? 'exactly (wrapping)' : 'within rounding'}`, async () => {
      const src = upload(t, x);
      const dst = s.alloc(t, 1);
      builtins.fill(s, dst, 0);
      builtins.reduceSum(s, dst, src);
      const [sum] = await readBack(t, dst);
      if (isInt(t)) expect(sum).toBe(exact[t](x.reduce((acc, v) => acc + BigInt(v), 0n)));
      else {
        const eps = t === 'f32' ? 2 ** -24 : 2 ** -53;
        const bound = N * eps * x.reduce((acc, v) => acc + Math.abs(v), 0);
        expect(Math.abs(sum! - x.reduce((acc, v) => acc + v, 0))).toBeLessThanOrEqual(bound);
      }
    });
  }

  it('rejects mismatched arrays with nothing enqueued', async () => {
    const a = s.alloc('f32', 4);
    builtins.fill(s, a, 1);
    expect(() => builtins.add(s, a, a, s.alloc('f32', 5))).toThrow(RangeError);
    expect(() => builtins.add(s, a, a, s.alloc('f64', 4) as never)).toThrow(TypeError);
    expect(() => builtins.fill(s, s.alloc('u8', 4) as never, 1)).toThrow(TypeError);
    expect(() => builtins.reduceSum(s, a, a)).toThrow(RangeError);
    expect(() => builtins.transpose(s, a, a, 3, 3)).toThrow(RangeError);
    expect(await readBack('f32', a)).toEqual([1, 1, 1, 1]);
  });

  it('names the argument that is wrong, and enqueues nothing', () => {
    const f = s.alloc('f32', 4);
    const u = s.alloc('u32', 4);
    const before = s.engine.given;
    expect(() => builtins.axpy(s, 2, f, undefined as never)).toThrow(new TypeError('Expected `y` to be a DeviceArray or HostArray, got undefined'));
    expect(() => builtins.fill({} as never, f, 1)).toThrow(new TypeError('Expected `stream` to be a Stream, got {}'));
    expect(() => builtins.fill(s, f, 'x' as never)).toThrow(new TypeError("Expected `value` to be a number within f32's range (±3.4028234663852886e+38; beyond it would become infinity), got \"x\""));
    expect(() => builtins.fill(s, u, -1)).toThrow(new RangeError('Expected `value` to be an integer 0..4294967295 (u32), got -1'));
    expect(() => builtins.add(s, f, f, u as never)).toThrow(new TypeError('Expected `b` to be memory of f32, as `dst` is, got memory of u32'));
    expect(() => builtins.iota(s, u, 0.5)).toThrow(new TypeError('Expected `start` to be an integer (u32), got 0.5'));
    expect(() => Builtins.for(5 as never)).toThrow(new TypeError('Expected `device` to be a Device, got 5'));
    expect(s.engine.given).toBe(before);
  });

  it('counts down with a negative integer step, wrapping as the device does', async () => {
    const u = s.alloc('u32', 4);
    builtins.iota(s, u, 2, -1);
    expect(await readBack('u32', u)).toEqual([2, 1, 0, 4294967295]);
  });

  it('refuses a transpose or a sum into memory that overlaps its source, and works in place where each element is its own', async () => {
    const m = s.alloc('f32', 8);
    builtins.iota(s, m, 0, 1);
    const before = s.engine.given;
    const overlaps = /apart from `src`, got memory that overlaps it/;
    expect(() => builtins.transpose(s, m.subarray(0, 4), m.subarray(0, 4), 2, 2)).toThrow(overlaps);
    expect(() => builtins.transpose(s, m.subarray(0, 4), m.subarray(2, 6), 2, 2)).toThrow(overlaps);
    expect(() => builtins.reduceSum(s, m.subarray(3, 4), m)).toThrow(overlaps);
    expect(() => builtins.scale(s, m.subarray(0, 4), m.subarray(1, 5), 2)).toThrow(RangeError);
    expect(s.engine.given).toBe(before);
    builtins.scale(s, m, m, 2); // in place: dst[i] depends on src[i] only
    expect(await readBack('f32', m)).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
  });
});
