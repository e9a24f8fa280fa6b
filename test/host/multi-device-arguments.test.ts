// Host devices standing for several GPUs, and the arguments multi-device calls refuse: each error
// names the argument, and nothing is enqueued.
import { afterAll, describe, expect, it } from 'vitest';
import { Device, LanePool, fanOut, onStreams, type Stream } from '../../src/index.js';

describe('Device.hosts', () => {
  it('gives distinct host devices, the same ones every call, the first being Device.host()', () => {
    const [a, b, c] = Device.hosts(3);
    expect(a).toBe(Device.host());
    expect(Device.hosts(2)).toEqual([a, b]);
    expect(new Set([a, b, c]).size).toBe(3);
    expect([a, b, c].map(String)).toEqual(['the host device', 'host device 1', 'host device 2']);
    expect([a, b, c].map((d) => [d!.kind, d!.ordinal, d!.hostIndex])).toEqual([['host', -1, 0], ['host', -1, 1], ['host', -1, 2]]);
    expect(a!.canAccessPeer(b!)).toBe(true);
  });

  it('refuses a count that is not a positive integer', () => {
    expect(() => Device.hosts(0)).toThrow(new RangeError('Expected `count` to be an integer ≥ 1, got 0'));
    expect(() => Device.hosts('2' as never)).toThrow(new TypeError('Expected `count` to be an integer, got "2"'));
  });
});

describe('multi-device arguments', () => {
  const [a, b, c] = Device.hosts(3) as [Device, Device, Device];
  const streams: Stream[] = [];
  const on = (device: Device) => {
    const s = device.createStream();
    streams.push(s);
    return s;
  };
  afterAll(() => streams.forEach((s) => s.close()));

  it("refuses a copy between two other devices than the stream's, and enqueues nothing", async () => {
    const [sa, sb, sc] = [on(a), on(b), on(c)];
    const x = sb.alloc('u32', 4), y = sc.alloc('u32', 4);
    sb.fill(x, 7);
    sc.fill(y, 1);
    expect(() => sa.copy(y, x)).toThrow(new RangeError('Expected `dst` to be memory of the host device, got memory of host device 2'));
    const out = c.allocHost('u32', 4);
    sc.copy(out, y);
    await sc.synchronized();
    expect([...out.data]).toEqual([1, 1, 1, 1]);
  });

  it('refuses to record an event of another device', () => {
    const event = b.createEvent();
    expect(() => on(a).record(event)).toThrow(RangeError);
    expect(() => on(a).record(event)).toThrow(/`event` to be an event of the host device/);
  });

  it('refuses a target, devices and options that cannot make lanes, naming them', () => {
    expect(() => onStreams(42 as never)).toThrow(new TypeError('Expected `target` to be a Device, an array of Devices or a LanePool, got 42'));
    expect(() => new LanePool([])).toThrow(TypeError);
    expect(() => new LanePool([])).toThrow(/^Expected `devices` to be a Device or a non-empty array of distinct Devices of one backend, got \[\]$/);
    expect(() => new LanePool([a, a])).toThrow(RangeError);
    expect(() => new LanePool([a, a])).toThrow(/`devices` .* \(a device twice\)/);
    expect(() => new LanePool([a, b], { lanes: 2, lanesPerDevice: 3 })).toThrow(new RangeError('Expected `lanesPerDevice` to be `lanes` (2) or left out, got 3'));
    expect(() => new LanePool([a, b], { lanesPerDevice: 0 })).toThrow(new RangeError('Expected `lanesPerDevice` to be an integer in 1..1024, got 0'));
    expect(() => new LanePool([a, b], { onDeviceFault: 'ignore' as never })).toThrow(new TypeError(`Expected \`onDeviceFault\` to be 'error' or a function, got "ignore"`));
    expect(() => fanOut(2, () => {}, { devices: [a] })).toThrow(/^Expected `options.devices` to be 2 Devices, one per branch, got/);
  });

  it('gives a pool of several devices as many lanes on each, and a bound for them all', () => {
    const pool = new LanePool([a, b, c], { lanesPerDevice: 2 });
    expect(pool.devices).toEqual([a, b, c]);
    expect(pool.lanes.map((lane) => lane.stream.device)).toEqual([a, a, b, b, c, c]);
    expect(pool.bound).toBe(12);
    pool.close();
  });

  it("keeps a template's kernels on the template's device", async () => {
    const template = a.template('extern "C" __global__ void k(unsigned* x) {}');
    const kernel = template.kernel('k', ['ptr'], { specialize: () => ({}), cpu: () => {} });
    const s = on(b);
    const x = s.alloc('u32', 1);
    expect(() => s.launch(kernel, { grid: 1, block: 1 }, [x])).toThrow(
      new RangeError("Expected `stream` to be a stream of the host device, got a stream of host device 1 (a template's kernels run on the template's device)"),
    );
    template.close();
  });
});
