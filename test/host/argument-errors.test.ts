// Calls that were accepted silently or failed unclearly: each is now refused before anything is
// enqueued, with a TypeError or RangeError that names the argument.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Device, LanePool, LaunchConfig, MAX_LANES, PipelineError, Stream, launch, type Kernel, type Module,
} from '../../src/index.js';
import { describe as describeValue } from '../../src/core/base/errors.js';

const device = Device.host();
let stream: Stream;
let module: Module;
let store: Kernel<readonly ['ptr<u32>', 'u32']>;
beforeAll(async () => {
  stream = device.createStream();
  module = await device.compile('extern "C" __global__ void store(unsigned* x, unsigned v) { *x = v; }');
  store = module.kernel('store', ['ptr<u32>', 'u32'], { cpu: (_, [x, v]) => void (x[0] = v) });
});
afterAll(() => stream.close());

/** Runs `call`, expecting it to throw `Class` with a message that names `name`, and nothing enqueued. */
function refused(call: () => unknown, Class: typeof TypeError | typeof RangeError, message: string | RegExp) {
  const before = [stream.engine.given, device.engine.completionPoints.size];
  let thrown: unknown;
  try {
    call();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(Class);
  if (typeof message === 'string') expect((thrown as Error).message).toBe(message);
  else expect((thrown as Error).message).toMatch(message);
  expect([stream.engine.given, device.engine.completionPoints.size]).toEqual(before);
}

const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};
const cycle = () => {
  const o: Record<string, unknown> = { a: 1 };
  o.self = o;
  return o;
};
const arrayCycle = () => {
  const a: unknown[] = [1];
  a.push(a);
  return a;
};

describe('describe() in argument errors', () => {
  it('never throws, and says what it can of hostile values', () => {
    const cases: [unknown, string][] = [
      [{ n: 1n }, '{"n":"1n"}'],
      [cycle(), '{"a":1,"self":"[cycle]"}'],
      [Object.create(null), 'an object with a null prototype'],
      [revoked(), 'a value that cannot be shown (object)'],
      [arrayCycle(), '[1, [1, an array of 2]]'],
      [{ get x() { throw new Error('getter'); } }, 'a value that cannot be shown (object)'],
      [{ toJSON() { throw new Error('toJSON'); } }, 'a value that cannot be shown (object)'],
      [new Proxy({}, { getPrototypeOf() { throw new Error('trap'); } }), 'a value that cannot be shown (object)'],
      [Symbol('s'), 'Symbol(s)'],
      [function named() {}, 'a function named'],
      [Array.from({ length: 100 }, (_, i) => i), '[0, 1, 2, 3, 4, 5, 6, 7, … 92 more]'],
      ['x'.repeat(500), `"${'x'.repeat(118)}…`],
      [new Uint8Array(4), 'a Uint8Array of 4'],
      [new Int32Array(2), 'an Int32Array of 2'],
      [new DataView(new ArrayBuffer(2)), 'a DataView'],
      [[0, 1, 1], '[0, 1, 1]'],
      [{ grid: 1 }, '{"grid":1}'],
    ];
    for (const [value, text] of cases) expect(describeValue(value)).toBe(text);
  });

  it('lets argument errors about hostile values be thrown as TypeErrors that name the argument', () => {
    for (const value of [{ n: 1n }, cycle(), Object.create(null), revoked(), arrayCycle()])
      refused(() => stream.wait(value as never), TypeError, /^Expected `event` to be an Event, got /);
  });
});

describe('Stream.record', () => {
  it('refuses a closed event', () => {
    const event = device.createEvent();
    event.close();
    refused(() => stream.record(event), TypeError, 'Expected `event` to be an open Event, got a closed Event');
  });
});

describe('Device.createStream', () => {
  it('refuses priorities that do not fit an int, instead of wrapping them around', () => {
    for (const priority of [2 ** 31, -(2 ** 31) - 1, 2 ** 53])
      expect(() => device.createStream({ priority })).toThrow(
        new RangeError(`Expected \`priority\` to be an integer in -2147483648..2147483647, got ${priority}`),
      );
    expect(() => device.createStream({ priority: 1n as never })).toThrow(new TypeError('Expected `priority` to be an integer, got 1n'));
    for (const priority of [2 ** 31 - 1, -(2 ** 31)]) device.createStream({ priority }).close();
  });
});

describe('options that are not objects', () => {
  it('are refused by suggestedBlockSize and LanePool', () => {
    for (const options of [5, 'x', null, true, [1]]) {
      expect(() => store.suggestedBlockSize(options as never)).toThrow(/^Expected `options` to be an options object, got /);
      expect(() => new LanePool(device, options as never)).toThrow(/^Expected `options` to be an options object, got /);
    }
    expect(() => new LanePool(device, { lanes: Symbol('x') as never })).toThrow(/^Expected `lanes` to be an integer in 1..1024, got Symbol\(x\)$/);
  });
});

describe('LanePool lanes', () => {
  it('refuses a count outside 1..MAX_LANES with a RangeError naming `lanes`, before making a stream', () => {
    expect(MAX_LANES).toBe(1024);
    const open = device.engine.liveLanes().length;
    for (const lanes of [0, -1, 1.5, MAX_LANES + 1, 2 ** 31, Infinity, NaN]) {
      expect(() => new LanePool(device, { lanes }), String(lanes)).toThrow(RangeError);
      expect(() => new LanePool(device, { lanes }), String(lanes)).toThrow(/^Expected `lanes` to be an integer in 1..1024, got /);
    }
    expect(() => new LanePool(device, { lanesPerDevice: MAX_LANES + 1 })).toThrow(/^Expected `lanesPerDevice` to be an integer in 1..1024, got 1025$/);
    expect(device.engine.liveLanes().length).toBe(open);
  });

  it('makes MAX_LANES lanes, each with a stream of its own', () => {
    const pool = new LanePool(device, { lanes: MAX_LANES });
    expect(new Set(pool.lanes.map((lane) => lane.stream)).size).toBe(MAX_LANES);
    pool.close();
    expect(pool.lanes.every((lane) => lane.stream.closed)).toBe(true);
  });
});

describe('Stream.copy', () => {
  it('refuses arrays of different element types, though their byte sizes are equal', () => {
    const f32 = device.allocHost('f32', 4);
    const u32 = stream.alloc('u32', 4);
    const u8 = stream.alloc('u8', 16);
    refused(() => stream.copy(u32, f32 as never), TypeError, 'Expected `src` to be memory of u32, as `dst` is, got a HostArray of f32');
    refused(() => stream.copy(u8, u32 as never), TypeError, 'Expected `src` to be memory of u8, as `dst` is, got a DeviceArray of u32');
  });
});

describe('arguments checked before the library touches them', () => {
  it('launch(undefined) names `kernel`', () => {
    for (const kernel of [undefined, null, {}, { launchOn: () => {} }])
      refused(() => stream.launch(kernel as never, { grid: 1, block: 1 }, [] as never), TypeError, /^Expected `kernel` to be a Kernel, got /);
    expect(() => launch(undefined as never, () => ({ config: { grid: 1, block: 1 }, args: [] }) as never)).toThrow(
      new TypeError('Expected `kernel` to be a Kernel, got undefined'),
    );
    expect(() => launch(store, 'x' as never)).toThrow(
      new TypeError('Expected `configure` to be a function, or a launch configuration followed by the arguments, got "x"'),
    );
  });

  it('Stream.fromHandle(handle, null) names `device`', () => {
    for (const bad of [null, undefined, {}, 0])
      expect(() => Stream.fromHandle(1n, bad as never)).toThrow(/^Expected `device` to be a Device, got /);
  });

  it('LaunchConfig and PipelineError describe hostile values without throwing', () => {
    expect(() => new LaunchConfig({ grid: revoked() as never, block: 1 })).toThrow(TypeError);
    expect(new PipelineError('host', 1, Object.create(null)).message).toBe('host failed for value #1: [object Object]');
    expect(new PipelineError('host', 1, revoked()).message).toBe('host failed for value #1: a thrown object that cannot be printed');
  });
});
