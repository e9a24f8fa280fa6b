// The operators' arguments refused at once, by name, with the bound where there is one; and a
// pool's options read once each, so that what was checked is what is used.
import { afterAll, describe, expect, it } from 'vitest';
import { Device, LanePool, MAX_BRANCHES, MAX_IN_FLIGHT, MAX_LANES, Timeline, download, enqueue, fanOut, framesFrom, upload } from '../../src/index.js';

const device = Device.host();
const pools: LanePool[] = [];
afterAll(() => pools.splice(0).forEach((p) => p.close()));

describe('fanOut', () => {
  it('refuses a count outside 1..MAX_BRANCHES with a RangeError that names the bound', () => {
    expect(MAX_BRANCHES).toBe(64);
    for (const count of [0, -1, 1.5, MAX_BRANCHES + 1, 2 ** 31, Infinity, NaN])
      expect(() => fanOut(count, () => {}), String(count)).toThrow(new RangeError(`Expected \`count\` to be an integer in 1..64, got ${count}`));
    expect(() => fanOut(MAX_BRANCHES, () => {})).not.toThrow();
  });

  it('refuses a count that is not a number, and a branch that is not a function, with a TypeError', () => {
    expect(() => fanOut(Symbol('n') as never, () => {})).toThrow(new TypeError('Expected `count` to be an integer in 1..64, got Symbol(n)'));
    expect(() => fanOut('2' as never, () => {})).toThrow(new TypeError('Expected `count` to be an integer in 1..64, got "2"'));
    expect(() => fanOut(2, 'x' as never)).toThrow(new TypeError('Expected `branch` to be a function that enqueues a branch, got "x"'));
    expect(() => fanOut(2, undefined as never)).toThrow(new TypeError('Expected `branch` to be a function that enqueues a branch, got undefined'));
  });
});

describe('LanePool', () => {
  it('refuses an inFlight outside 1..MAX_IN_FLIGHT with a RangeError that names the bound, before making a stream', () => {
    const open = device.engine.liveLanes().length;
    for (const inFlight of [0, 1.5, MAX_IN_FLIGHT + 1, 2 ** 40, Infinity])
      expect(() => new LanePool(device, { inFlight }), String(inFlight)).toThrow(new RangeError(`Expected \`inFlight\` to be an integer in 1..${MAX_IN_FLIGHT}, got ${inFlight}`));
    expect(() => new LanePool(device, { inFlight: '4' as never })).toThrow(new TypeError(`Expected \`inFlight\` to be an integer in 1..${MAX_IN_FLIGHT}, got "4"`));
    expect(() => new LanePool(device, { lanes: '2' as never })).toThrow(new TypeError(`Expected \`lanes\` to be an integer in 1..${MAX_LANES}, got "2"`));
    expect(device.engine.liveLanes().length).toBe(open);
    const pool = new LanePool(device, { lanes: 1, inFlight: MAX_IN_FLIGHT });
    pools.push(pool);
    expect(pool.bound).toBe(MAX_IN_FLIGHT);
  });

  it('reads each option once, and keeps what it checked', () => {
    const timeline = new Timeline();
    const reads = new Map<string, number>();
    // Each getter answers right the first time and wrong after.
    const answer = <T>(name: string, right: T, wrong: unknown) => () => {
      const n = (reads.get(name) ?? 0) + 1;
      reads.set(name, n);
      return n === 1 ? right : wrong;
    };
    const options = Object.defineProperties({}, {
      lanes: { enumerable: true, get: answer('lanes', 2, 2 ** 31) },
      lanesPerDevice: { enumerable: true, get: answer('lanesPerDevice', 2, 3) },
      inFlight: { enumerable: true, get: answer('inFlight', 3, 0) },
      spin: { enumerable: true, get: answer('spin', 10, -1) },
      timeline: { enumerable: true, get: answer('timeline', timeline, {}) },
      onDeviceFault: { enumerable: true, get: answer('onDeviceFault', 'error', 'ignore') },
    });
    const pool = new LanePool(device, options);
    pools.push(pool);
    expect(Object.fromEntries(reads)).toEqual({ lanes: 1, lanesPerDevice: 1, inFlight: 1, spin: 1, timeline: 1, onDeviceFault: 1 });
    expect([pool.lanes.length, pool.bound, pool.spin, pool.timeline, pool.onDeviceFault]).toEqual([2, 3, 10, timeline, 'error']);
  });

  it('refuses a timeline that is not one, as read once', () => {
    let reads = 0;
    const options = { get timeline() {
      return reads++ === 0 ? ({} as Timeline) : new Timeline();
    } };
    expect(() => new LanePool(device, options)).toThrow(new TypeError('Expected `timeline` to be a Timeline, got {}'));
    expect(reads).toBe(1);
  });
});

describe('slot names', () => {
  it("refuses upload's and download's names that are not non-empty strings, at once", () => {
    for (const name of [42, null, '', '__proto__', Symbol('x'), {}]) {
      const expected = /^Expected `name` to be a non-empty string other than "__proto__", got /;
      expect(() => upload((x: Float32Array) => x, name as string), String(name)).toThrow(TypeError);
      expect(() => upload((x: Float32Array) => x, name as string), String(name)).toThrow(expected);
      expect(() => download(() => undefined as never, name as string), String(name)).toThrow(TypeError);
      expect(() => download(() => undefined as never, name as string), String(name)).toThrow(expected);
    }
    expect(() => upload((x: Float32Array) => x, 42 as never)).toThrow(new TypeError('Expected `name` to be a non-empty string other than "__proto__", got 42'));
    expect(() => download(() => undefined as never, null as never)).toThrow(new TypeError('Expected `name` to be a non-empty string other than "__proto__", got null'));
    expect(() => upload((x: Float32Array) => x, 'pixels')).not.toThrow();
  });

  it("refuses enqueue's function and name when they are not a function and a string", () => {
    expect(() => enqueue(42 as never)).toThrow(new TypeError("Expected `fn` to be a function that enqueues a value's work, got 42"));
    expect(() => enqueue(() => {}, 7 as never)).toThrow(new TypeError('Expected `name` to be a string, got 7'));
  });
});

describe('framesFrom', () => {
  it('refuses frames larger than a pinned buffer can be at once, naming the bound', () => {
    expect(() => framesFrom(device, { dtype: 'f64', length: 2 ** 52 }, () => {})).toThrow(RangeError);
    expect(() => framesFrom(device, { dtype: 'f64', length: 2 ** 52 }, () => {})).toThrow(/^Expected `length` to be at most \d+ f64 elements \(\d+ bytes, the largest buffer Node.js makes\), got 4503599627370496$/);
  });
});
