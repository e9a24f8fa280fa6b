import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { Device, DeviceArray, HostArray, type DType, type Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';

describeBackends('Stream memory', (getDevice) => {
  let device: Device;
  let s: Stream;
  beforeAll(() => {
    device = getDevice();
    s = device.createStream();
  });
  afterAll(() => s.close());

  it('round-trips every element type host → device → device → host', async () => {
    const samples: Record<DType, (number | bigint)[]> = {
      i8: [-128, -1, 0, 127], u8: [0, 1, 200, 255], i16: [-32768, -2, 3, 32767], u16: [0, 1, 40000, 65535],
      i32: [-(2 ** 31), -1, 5, 2 ** 31 - 1], u32: [0, 1, 3_000_000_000, 2 ** 32 - 1],
      i64: [-(2n ** 63n), -1n, 2n ** 53n + 1n, 2n ** 63n - 1n], u64: [0n, 1n, 2n ** 53n + 1n, 2n ** 64n - 1n],
      f16: [0x3c00, 0xc000, 0x7bff, 0x0001], bf16: [0x3f80, 0xc000, 0x7f7f, 0x0001], f32: [1.5, -0, 3.4e38, Number.NaN], f64: [Math.PI, -1e308, 5e-324, Infinity],
    };
    for (const [dtype, values] of Object.entries(samples) as [DType, (number | bigint)[]][]) {
      const input = device.allocHost(dtype, values.length);
      input.data.set(values as never);
      const a = s.alloc(dtype, values.length);
      const b = s.alloc(dtype, values.length);
      const output = device.allocHost(dtype, values.length);
      s.copy(a, input);
      s.copy(b, a);
      s.copy(output, b);
      await s.synchronized();
      expect([...output.data], dtype).toEqual([...input.data]);
      expect(output.data).toBeInstanceOf(input.data.constructor);
      a.close();
      b.close();
    }
  });

  it('fills every element width', async () => {
    const cases: [DType, number | bigint, number | bigint][] = [
      ['u8', 0xab, 0xab], ['i8', -3, -3], ['u16', 0xbeef, 0xbeef], ['f16', 1.5, 0x3e00], ['bf16', 1.5, 0x3fc0], ['i32', -7, -7],
      ['f32', 0.1, Math.fround(0.1)], ['u64', 2n ** 64n - 2n, 2n ** 64n - 2n], ['i64', -5, -5n], ['f64', Math.E, Math.E],
    ];
    for (const [dtype, value, expected] of cases) {
      const a = s.alloc(dtype, 1000);
      s.fill(a, value as never);
      const host = device.allocHost(dtype, 1000);
      s.copy(host, a);
      await s.synchronized();
      expect(new Set<unknown>(host.data as Iterable<unknown>).size, dtype).toBe(1);
      expect(host.data[999], dtype).toBe(expected);
      a.close();
    }
  });

  it('copies sub-ranges', async () => {
    const host = device.allocHost('u32', 8);
    host.data.set([0, 1, 2, 3, 4, 5, 6, 7]);
    const a = s.alloc('u32', 8);
    s.fill(a, 0);
    s.copy(a.subarray(2, 5), host.subarray(5, 8));
    const out = device.allocHost('u32', 8);
    s.copy(out, a);
    await s.synchronized();
    expect([...out.data]).toEqual([0, 0, 5, 6, 7, 0, 0, 0]);
    expect(a.subarray(2, 5).ptr).toBe(a.ptr + 8n);
  });

  it('rejects out-of-bounds views and mismatched copies, enqueuing nothing', async () => {
    const a = s.alloc('f32', 4);
    s.fill(a, 1);
    const host = device.allocHost('f32', 5);
    host.data.fill(9);
    expect(() => a.subarray(0, 5)).toThrow(new RangeError('Expected `end` to be at most the length 4, got 5'));
    expect(() => a.subarray(3, 2)).toThrow(RangeError);
    expect(() => a.subarray(-1)).toThrow(RangeError);
    expect(() => s.copy(a, host)).toThrow(new RangeError('Expected `src` to be 16 bytes, as `dst` is, got 20 bytes'));
    expect(() => s.copy(host, a)).toThrow(RangeError);
    expect(() => s.copy(a, new Float32Array(4) as never)).toThrow(/`src` to be a DeviceArray or HostArray/);
    expect(() => s.fill(a, 'x' as never)).toThrow(TypeError);
    expect(() => s.fill(s.alloc('u8', 1), 256)).toThrow(RangeError);
    expect(() => s.alloc('float' as never, 4)).toThrow(TypeError);
    expect(() => s.alloc('f32', -1)).toThrow(RangeError);
    const out = device.allocHost('f32', 4);
    s.copy(out, a);
    await s.synchronized();
    expect([...out.data]).toEqual([1, 1, 1, 1]);
    expect([...host.data]).toEqual([9, 9, 9, 9, 9]);
  });

  it('rejects closed memory', () => {
    const a = s.alloc('u32', 1);
    a.close();
    a.close();
    expect(a.closed).toBe(true);
    expect(() => s.fill(a, 1)).toThrow(new TypeError('Expected `dst` to be open memory, got a closed DeviceArray'));
    expect(() => a.subarray(0, 1)).toThrow(new TypeError('Expected `array` to be an open DeviceArray, got a closed DeviceArray'));
  });

  it('gives pinned host memory as a real TypedArray, emptied once freed', async () => {
    const unused = device.allocHost('f64', 3);
    expect(unused).toBeInstanceOf(HostArray);
    const view = unused.data;
    expect(view).toBeInstanceOf(Float64Array);
    unused.close();
    expect(view.length).toBe(0);
    expect(() => unused.data).toThrow(new TypeError('Expected `array` to be an open HostArray, got a closed HostArray'));

    const used = device.allocHost('u8', 1 << 20);
    const usedView = used.data;
    const a = s.alloc('u8', 1 << 20);
    s.copy(a, used);
    used.close(); // the copy may still be running: the memory stays until it has finished
    expect(used.closed).toBe(true);
    await s.synchronized();
    await vi.waitFor(() => expect(usedView.length).toBe(0));
  });

  it('reuses the block of a freed small pinned array, zeroed, and frees large ones', async () => {
    const small = device.allocHost('u32', 100); // 400 bytes: a 512-byte block
    const smallView = small.data.fill(0xffff_ffff);
    const { ptr } = small;
    const cached = device.engine.pinnedCache.freeBytes;
    small.close();
    expect(device.engine.pinnedCache.freeBytes).toBe(cached + 512);
    const again = device.allocHost('i16', 256); // 512 bytes: the same size class
    expect(again.ptr).toBe(ptr);
    expect([...again.data].every((v) => v === 0)).toBe(true);
    expect(smallView.length).toBe(0);

    const large = device.allocHost('u8', (1 << 20) + 1); // past the cached sizes
    const largeView = large.data;
    const before = device.engine.pinnedCache.freeBytes;
    large.close();
    await vi.waitFor(() => expect(largeView.length).toBe(0));
    expect(device.engine.pinnedCache.freeBytes).toBe(before);
    again.close();
  });

  it('keeps a large pinned block a moment for the next array of its size, zeroed, then frees it', async () => {
    const bytes = 3 * (1 << 20) + 4;
    const kept = 0;
    await vi.waitFor(() => expect(device.engine.pinnedCache.keptBytes).toBe(kept), { timeout: 5000, interval: 100 }); // earlier tests' blocks
    const first = device.allocHost('u32', bytes / 4);
    const firstView = first.data.fill(7);
    const { ptr } = first;
    first.close();
    await vi.waitFor(() => expect(device.engine.pinnedCache.keptBytes).toBe(kept + bytes));
    const again = device.allocHost('u8', bytes); // the same size, another element type
    expect(again.ptr).toBe(ptr);
    expect(again.data.every((v) => v === 0)).toBe(true);
    expect(firstView.length).toBe(0);
    again.close();
    await vi.waitFor(() => expect(device.engine.pinnedCache.keptBytes).toBe(kept + bytes));
    // Nobody asks for that size again: it is freed after a second.
    await vi.waitFor(() => expect(device.engine.pinnedCache.keptBytes).toBe(kept), { timeout: 5000, interval: 100 });
  }, 15_000);

  it('frees device memory stream-ordered behind work of several streams', async () => {
    const other = device.createStream();
    const a = s.alloc('u32', 1 << 20);
    s.fill(a, 1);
    await s.synchronized();
    other.fill(a, 2);
    const out = device.allocHost('u32', 1 << 20);
    other.copy(out, a);
    a.close();
    const done = other.record();
    other.close();
    await done.completed();
    expect(out.data[0]).toBe(2);
    expect(out.data[(1 << 20) - 1]).toBe(2);
    expect(a).toBeInstanceOf(DeviceArray);
  });
});
