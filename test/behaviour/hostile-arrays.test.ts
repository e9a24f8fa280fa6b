// Arrays of the user's whose getters lie (a subclass's `length`, `byteLength`, `byteOffset`,
// `buffer` or `Symbol.toStringTag`, an own `length`) and Proxies of arrays: rxcuda measures an array
// through its internal slots, so that it addresses the bytes the array has, and refuses a Proxy.
import { beforeAll, describe, expect, it } from 'vitest';
import { copyHost, copySmall } from '../../src/core/memory/host-copy.js';
import type { Device, Kernel } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { streamsPerTest } from '../support/streams.js';

const LENGTH = 16;
const OFFSET = 4; // elements of the buffer before the array

/** A Float32Array of LENGTH elements at OFFSET in a buffer twice its size, one getter lying. */
const liars: Record<string, (buffer: ArrayBuffer) => Float32Array> = {
  length: (buffer) => new (class extends Float32Array { override get length() { return 4_194_304; } })(buffer, OFFSET * 4, LENGTH),
  byteLength: (buffer) => new (class extends Float32Array { override get byteLength() { return 1 << 24; } })(buffer, OFFSET * 4, LENGTH),
  byteOffset: (buffer) => new (class extends Float32Array { override get byteOffset() { return 0; } })(buffer, OFFSET * 4, LENGTH),
  buffer: (buffer) => new (class extends Float32Array { override get buffer() { return new ArrayBuffer(1 << 24); } })(buffer, OFFSET * 4, LENGTH),
  toStringTag: (buffer) => new (class extends Float32Array { override get [Symbol.toStringTag]() { return 'Float64Array' as 'Float32Array'; } })(buffer, OFFSET * 4, LENGTH),
  'own length': (buffer) => Object.defineProperty(new Float32Array(buffer, OFFSET * 4, LENGTH), 'length', { value: 4_194_304 }),
};

/** A TypeError (of whichever subclass) with exactly `message`. */
const typeErrorWith = (message: string) => expect.objectContaining({ name: 'TypeError', message });

/** The buffer's elements as a plain Float32Array reads them. */
const elements = (buffer: ArrayBuffer) => [...new Float32Array(buffer)];

describeBackends('device.registerHost of an array whose getters lie', (getDevice) => {
  let device: Device;
  beforeAll(() => void (device = getDevice()));
  const stream = streamsPerTest(() => device);

  for (const [lie, make] of Object.entries(liars)) {
    it(`measures the array by its slots, not its ${lie}, and copies its own bytes both ways`, async () => {
      const buffer = new ArrayBuffer(2 * LENGTH * 4);
      const liar = make(buffer);
      const s = stream();
      const registered = device.registerHost(liar);
      expect([registered.dtype, registered.length, registered.byteLength]).toEqual(['f32', LENGTH, LENGTH * 4]);
      expect(registered.data).toBe(liar); // the user's array itself
      const onDevice = s.alloc('f32', LENGTH);
      s.fill(onDevice, 2.5);
      s.copy(registered, onDevice);
      await s.synchronized();
      const expected = Array.from({ length: 2 * LENGTH }, (_, i) => (i >= OFFSET && i < OFFSET + LENGTH ? 2.5 : 0));
      expect(elements(buffer)).toEqual(expected); // nothing outside the array was written
      new Float32Array(buffer, OFFSET * 4, LENGTH).forEach((_, i, a) => void (a[i] = i));
      const back = device.allocHost('f32', LENGTH);
      s.copy(onDevice, registered);
      s.copy(back, onDevice);
      await s.synchronized();
      expect([...back.data]).toEqual(Array.from({ length: LENGTH }, (_, i) => i));
      const part = registered.subarray(2, 4);
      expect([part.length, part.ptr - registered.ptr]).toEqual([2, 8n]);
      expect([...part.data]).toEqual([2, 3]);
      registered.close();
      back.close();
    });
  }

  it('refuses a Proxy of a typed array, which has no memory of its own to lock', () => {
    const proxy = new Proxy(new Float32Array(LENGTH), {});
    expect(() => device.registerHost(proxy)).toThrow(typeErrorWith('Expected `data` to be a TypedArray, got a Proxy of a Float32Array'));
  });
});

describeBackends('struct launch arguments whose getters lie', (getDevice) => {
  let device: Device;
  let pair: Kernel<readonly ['ptr<u32>', { struct: 8; align: 4 }]>;
  beforeAll(async () => {
    device = getDevice();
    const module = await device.compile('struct Pair { unsigned a, b; };\nextern "C" __global__ void pair(unsigned* x, Pair p) { x[0] = p.a * 10 + p.b; }');
    pair = module.kernel('pair', ['ptr<u32>', { struct: 8, align: 4 }], {
      cpu: (_, [x, p]) => {
        const v = ArrayBuffer.isView(p) ? new Uint32Array(p.buffer, p.byteOffset, 2) : new Uint32Array(p, 0, 2);
        x[0] = v[0]! * 10 + v[1]!;
      },
    });
  });
  const stream = streamsPerTest(() => device);
  const one = { grid: 1, block: 1 };

  it('are packed from the bytes their slots hold, whatever their byteLength and byteOffset say', async () => {
    const s = stream();
    const out = device.allocHost('u32', 1);
    const words = new Uint32Array([9, 9, 3, 4]);
    const liar = new (class extends Uint32Array {
      override get byteLength() { return 4; }
      override get byteOffset() { return 0; }
    })(words.buffer, 8, 2);
    s.launch(pair, one, [out, liar]);
    await s.synchronized();
    expect(out.data[0]).toBe(34);
  });

  it('are refused when their slots hold fewer bytes than the struct, whatever they say', () => {
    const s = stream();
    const out = device.allocHost('u32', 1);
    class Short extends Uint32Array {
      override get byteLength() { return 8; }
      override get length() { return 2; }
    }
    expect(() => s.launch(pair, one, [out, new Short(1)])).toThrow(typeErrorWith('Expected `args[1]` to be 8 bytes (an ArrayBuffer or a view) for struct(8), got a Short of 1'));
    const proxy = new Proxy(new Uint32Array(2), {});
    expect(() => s.launch(pair, one, [out, proxy])).toThrow(/^Expected `args\[1\]` to be 8 bytes .*, got a Proxy of a Uint32Array/);
  });
});

describeBackends('host step userData whose getters lie', (getDevice) => {
  const stream = streamsPerTest(() => getDevice());

  it('is copied at enqueue as the bytes its slots hold, as a plain view of its kind', async () => {
    const s = stream();
    const bytes = new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7]);
    const liar = new (class extends Uint16Array {
      override get length() { return 1 << 20; }
      override get byteLength() { return 1 << 21; }
      override get byteOffset() { return 0; }
    })(bytes.buffer, 2, 2);
    let seen: unknown;
    s.hostLaunch((data) => void (seen = data), { userData: liar });
    bytes.fill(0); // the step has its copy
    await s.synchronized();
    expect(seen).toBeInstanceOf(Uint16Array);
    expect(Object.getPrototypeOf(seen)).toBe(Uint16Array.prototype);
    expect([...new Uint8Array((seen as Uint16Array).buffer)]).toEqual([2, 3, 4, 5]);
  });
});

describe('host copies between arrays whose getters lie', () => {
  it('copy the bytes the slots hold, and refuse a target shorter than the source in rxcuda\'s words', async () => {
    class Long extends Uint32Array { override get length() { return 1 << 20; } override get byteLength() { return 1 << 22; } }
    const source = new Uint32Array([1, 2, 3, 4]);
    const room = new Long(4);
    copySmall(room, source);
    expect([...new Uint32Array(room.buffer)]).toEqual([1, 2, 3, 4]);
    const short = new Long(2);
    expect(() => copySmall(short, source)).toThrow(new RangeError('Expected `dst` to be at least 16 bytes, as `src` has, got 8 bytes'));
    expect(() => copySmall(new Uint8Array(8), new Long(4))).toThrow(/^Expected `dst` to be at least 16 bytes/);
    const large = new Uint32Array(1 << 17).fill(7); // 512 KiB: past the main thread's copies
    const target = new (class extends Uint32Array { override get byteLength() { return 0; } })(1 << 17);
    await new Promise<void>((done) => copyHost(target, large, done));
    expect(new Uint32Array(target.buffer).every((v) => v === 7)).toBe(true);
    expect(() => copyHost(new Long(16), large, () => {})).toThrow(new RangeError(`Expected \`dst\` to be at least ${1 << 19} bytes, as \`src\` has, got 64 bytes`));
  });
});
