// Bad input, property-tested: every public entry point below gets at least 10^4 generated calls,
// each with at least one argument that is bad (hostile values included: bigints, cycles, proxies,
// revoked proxies, getters and traps that throw, valueOfs that change between reads, detached
// buffers). Each must be refused with a TypeError or RangeError that names an argument, with
// nothing enqueued (the stream's command counter, the completion-point pool and the open streams
// do not move; kernels, steps and host functions never run), and a valid call afterwards must
// give the right result. The one exception is a user's getter or proxy trap that throws: its own
// error propagates unchanged, as in Node's own APIs, with nothing enqueued either.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Device, LaunchConfig, type DeviceArray, type Event, type HostArray, type Kernel, type Module, type Stream } from '../../src/index.js';
import { helpers } from '../support/helpers.js';

/** Generated calls per entry point (the requirement is 10^4). */
const RUNS = 10_000;

/** What a hostile getter or trap throws: the user's own error, which must propagate unchanged. */
class UserThrew extends Error {}
const userThrew = () => {
  throw new UserThrew('a getter or trap of the caller threw');
};

const revokedProxy = () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};
const trappingProxy = () =>
  new Proxy({}, { get: userThrew, has: userThrew, ownKeys: userThrew, getPrototypeOf: userThrew, getOwnPropertyDescriptor: userThrew });
const cycle = () => {
  const o: Record<string, unknown> = { n: 1n };
  o.self = o;
  return o;
};
const arrayCycle = () => {
  const a: unknown[] = [1];
  a.push(a);
  return a;
};
const throwingGetters = () =>
  Object.defineProperties({}, Object.fromEntries(
    ['grid', 'block', 'priority', 'nonBlocking', 'timing', 'userData', 'timeout', 'spin', 'cpu', 'sharedMem', 'length', 'dtype', '0', '1']
      .map((key) => [key, { get: userThrew, enumerable: true }]),
  ));
const changingValueOf = () => {
  let reads = 0;
  return { valueOf: () => (reads++ % 2 === 0 ? 4 : -1), [Symbol.toPrimitive]: () => (reads++ % 2 === 0 ? 4 : 'x') };
};
const detachedBuffer = () => {
  const buffer = new ArrayBuffer(8);
  structuredClone(buffer, { transfer: [buffer] });
  return buffer;
};
const detachedView = () => {
  const view = new Uint32Array(2);
  structuredClone(view.buffer, { transfer: [view.buffer] });
  return view;
};

/**
 * A hostile value made only when the call is made: fast-check itself looks into the values it
 * generates (for cloning and printing), which a revoked proxy or a throwing getter would not allow.
 */
class Lazy {
  constructor(readonly name: string, readonly make: () => unknown) {}
  toString(): string {
    return this.name;
  }
}
const lazy = (name: string, make: () => unknown) => fc.constant(new Lazy(name, make));

/** The generated arguments with each Lazy made, in the arrays and records the generators build. */
function materialize(value: unknown, depth = 0): unknown {
  if (value instanceof Lazy) return value.make();
  if (depth > 2 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => materialize(v, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, materialize(v, depth + 1)]));
}

/** Values no parameter of rxcuda accepts as they are (numbers and strings come separately). */
const hostileObject: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, Symbol('s'), () => {}, class {}, new Date(0), /x/, new Map(), new Error('x')),
  lazy('a revoked proxy', revokedProxy),
  lazy('a proxy whose traps throw', trappingProxy),
  lazy('a cycle holding a bigint', cycle),
  lazy('an array holding itself', arrayCycle),
  lazy('an object whose getters throw', throwingGetters),
  lazy('an object whose valueOf changes between reads', changingValueOf),
  lazy('an object with a null prototype', () => Object.create(null) as object),
  lazy('a detached ArrayBuffer', detachedBuffer),
  lazy('a Uint32Array over a detached buffer', detachedView),
  fc.object({ maxDepth: 1, maxKeys: 3, values: [fc.bigInt(), fc.integer(), fc.string({ maxLength: 4 })] }),
  fc.array(fc.oneof(fc.bigInt(), fc.integer(), fc.constant(null)), { maxLength: 4 }),
);
/** Anything hostile: objects above, bigints, odd numbers, strings, undefined. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  hostileObject,
  fc.bigInt(),
  fc.double(),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, -1, 1.5, 2 ** 31, 2 ** 32, 2 ** 53, -(2 ** 53), Number.MAX_VALUE, undefined),
  fc.string({ maxLength: 8 }),
);
/** Hostile values that are not plain options objects (undefined is left out: it means "defaults"). */
const badOptions = fc.oneof(
  hostile.filter((v) => v !== undefined && (typeof v !== 'object' || v === null || Array.isArray(v) || (v instanceof Lazy && v.make === revokedProxy))),
  // Options objects whose reading throws the caller's own error: it propagates.
  lazy('options whose getters throw', throwingGetters),
  lazy('options behind a proxy whose traps throw', trappingProxy),
);
/** Numbers that are not non-negative safe integers, and everything else. */
const badCount = fc.oneof(hostile.filter((v) => !(typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)));
/** Values that are not u32. */
const badU32 = hostile.filter((v) => !(typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 2 ** 32));
const badFunction = hostile.filter((v) => typeof v !== 'function');
const badDType = fc.oneof(hostile, fc.constantFrom('f128', 'U32', 'ptr', 'constructor', '__proto__', 'toString', '')).filter((v) => !(typeof v === 'string' && ['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f16', 'f32', 'f64'].includes(v)));

/**
 * Argument lists with at least one bad argument: position `k` is always bad, the others are valid
 * or bad at random.
 */
function badCalls(valid: fc.Arbitrary<unknown>[], bad: fc.Arbitrary<unknown>[]): fc.Arbitrary<unknown[]> {
  return fc.integer({ min: 0, max: valid.length - 1 }).chain((k) =>
    fc.tuple(...valid.map((v, i) => (i === k ? bad[i]! : fc.oneof(v, bad[i]!)))),
  );
}

const device = Device.host();
let stream: Stream;
let module: Module;
let store: Kernel<readonly ['ptr<u32>', 'u32']>;
let launches = 0;
let u32: DeviceArray<'u32'>, f32: DeviceArray<'f32'>, closed: DeviceArray<'u32'>, short: DeviceArray<'u32'>;
let hostU32: HostArray<'u32'>, hostF32: HostArray<'f32'>;
let recorded: Event, closedEvent: Event;
const figures: Record<string, { calls: number; named: number; propagated: number; ms: number }> = {};

beforeAll(async () => {
  stream = device.createStream();
  module = await device.compile('extern "C" __global__ void store(unsigned* x, unsigned v) { *x = v; }\nextern "C" __global__ void k(unsigned* x, unsigned v) { x[1] = v; }');
  store = module.kernel('store', ['ptr<u32>', 'u32'], { cpu: (_, [x, v]) => void ((x[0] = v), launches++) });
  u32 = stream.alloc('u32', 4);
  f32 = stream.alloc('f32', 4);
  short = stream.alloc('u32', 2);
  closed = stream.alloc('u32', 4);
  closed.close();
  hostU32 = device.allocHost('u32', 4);
  hostF32 = device.allocHost('f32', 4);
  stream.fill(u32, 0xabcd);
  recorded = stream.record();
  closedEvent = device.createEvent();
  closedEvent.close();
  await stream.synchronized();
});
afterAll(() => {
  stream.close();
  console.log(JSON.stringify(figures));
});

/** Counters that any enqueue, stream or completion point moves. */
const counters = () => [stream.engine.given, device.engine.completionPoints.size, device.engine.liveLanes().length, launches];

/**
 * Runs `calls` generated bad calls of `entry` and checks each: refused by name (or the user's own
 * getter error, unchanged), nothing enqueued.
 */
function property(entry: string, names: string[], calls: fc.Arbitrary<unknown[]>, call: (args: unknown[]) => unknown) {
  // An argument by name, or an option of an options object it does not know (named with the known ones).
  const named = new RegExp(`^(Expected \`(${names.map((n) => n.replace(/[[\]]/g, '\\$&')).join('|')})\` to be .+, got .+|Unknown option \`.*\`; .+)`, 's');
  const tally = (figures[entry] = { calls: 0, named: 0, propagated: 0, ms: 0 });
  const start = performance.now();
  fc.assert(
    fc.property(calls, (args) => {
      const before = counters();
      let thrown: unknown;
      let returned: unknown;
      try {
        returned = call(materialize(args) as unknown[]);
      } catch (error) {
        thrown = error;
      }
      tally.calls++;
      if (thrown instanceof UserThrew) tally.propagated++;
      else {
        if (!(thrown instanceof TypeError || thrown instanceof RangeError))
          throw new Error(`${entry}(${args.map(String).join(', ')}) was not refused: ${thrown === undefined ? `returned ${String(returned)}` : String(thrown)}`);
        if (!named.test(thrown.message)) throw new Error(`${entry}: the message does not name an argument: ${thrown.message}`);
        tally.named++;
      }
      expect(counters()).toEqual(before);
    }),
    { numRuns: RUNS },
  );
  tally.ms = Math.round(performance.now() - start);
  expect(tally.calls).toBeGreaterThanOrEqual(RUNS);
}

describe('bad input to Stream', () => {
  const launchConfig = fc.constantFrom({ grid: 1, block: 1 }, new LaunchConfig({ grid: 2, block: [2, 2] }));
  const badConfig = fc.oneof(
    hostile.filter((v) => !(v instanceof LaunchConfig)),
    fc.record({ grid: fc.oneof(fc.constant(1), hostile), block: fc.oneof(fc.constantFrom(2048, 0, [1, 1, 65]), hostile) }),
    fc.record({ grid: fc.constantFrom(0, -1, 2 ** 32, [1, 2 ** 16], 1.5), block: fc.constant(1) }),
    fc.record({ grid: fc.constant(1), block: fc.constant(1), sharedMem: fc.oneof(hostile.filter((v) => v !== undefined && !(Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 232448))) }),
  );
  const memory = () => fc.constantFrom<unknown>(u32, hostU32);
  const badMemoryU32 = () => fc.oneof(hostile, fc.constantFrom<unknown>(f32, hostF32, closed));
  const badMemory = () => fc.oneof(hostile, fc.constantFrom<unknown>(closed));

  it('launch', async () => {
    const args = fc.tuple(memory(), fc.integer({ min: 0, max: 2 ** 32 - 1 }));
    const badArgs = fc.oneof(
      hostile,
      fc.tuple(badMemoryU32(), fc.integer({ min: 0, max: 100 })),
      fc.tuple(memory(), badU32),
      fc.array(memory(), { maxLength: 4 }).filter((a) => a.length !== 2),
    );
    property('Stream.launch', ['kernel', 'config', 'grid', 'block', 'sharedMem', 'cluster', 'cooperative', 'args', 'args[0]', 'args[1]'],
      badCalls([fc.constant(store), launchConfig, args], [hostile.filter((v) => v !== store), badConfig, badArgs]),
      ([k, c, a]) => stream.launch(k as never, c as never, a as never));
    stream.launch(store, { grid: 1, block: 1 }, [hostU32, 77]);
    await stream.synchronized();
    expect([hostU32.data[0], launches]).toEqual([77, 1]);
  });

  it('copy', async () => {
    property('Stream.copy', ['dst', 'src'],
      fc.oneof(
        badCalls([memory(), memory()], [badMemory(), badMemory()]),
        fc.tuple(fc.constantFrom<unknown>(u32, hostU32), fc.constantFrom<unknown>(f32, hostF32, short)),
      ),
      ([d, s]) => stream.copy(d as never, s as never));
    await stream.synchronized();
    expect([...hostU32.data]).toEqual([77, 0, 0, 0]); // nothing copied
    stream.copy(hostU32, u32);
    await stream.synchronized();
    expect([...hostU32.data]).toEqual([0xabcd, 0xabcd, 0xabcd, 0xabcd]);
  });

  it('fill', async () => {
    property('Stream.fill', ['dst', 'value'],
      badCalls([memory(), fc.integer({ min: 0, max: 100 })], [badMemory(), badU32]),
      ([d, v]) => stream.fill(d as never, v as never));
    stream.copy(hostU32, u32);
    await stream.synchronized();
    expect([...hostU32.data]).toEqual([0xabcd, 0xabcd, 0xabcd, 0xabcd]); // nothing filled
    stream.fill(hostU32, 5);
    await stream.synchronized();
    expect([...hostU32.data]).toEqual([5, 5, 5, 5]);
  });

  it('alloc', async () => {
    property('Stream.alloc', ['dtype', 'length'],
      badCalls([fc.constantFrom('u32', 'f64', 'u8'), fc.integer({ min: 0, max: 16 })], [badDType, badCount]),
      ([t, n]) => stream.alloc(t as never, n as never));
    const fresh = stream.alloc('u32', 3);
    stream.fill(fresh, 9);
    const back = device.allocHost('u32', 3);
    stream.copy(back, fresh);
    await stream.synchronized();
    expect([...back.data]).toEqual([9, 9, 9]);
  });

  it('record', async () => {
    property('Stream.record', ['options', 'event', 'timing'],
      fc.oneof(
        badOptions.map((o) => [o]),
        fc.constant<unknown[]>([closedEvent]),
        fc.record({ timing: hostile.filter((v) => v !== undefined && typeof v !== 'boolean') }).map((o) => [o]),
      ),
      ([o]) => stream.record(o as never));
    const event = stream.record({ timing: true });
    await event.completed();
    expect(event.query()).toBe(true);
  });

  it('wait', async () => {
    property('Stream.wait', ['event'],
      fc.oneof(hostile.map((e) => [e]), fc.constant<unknown[]>([closedEvent])),
      ([e]) => stream.wait(e as never));
    stream.wait(recorded);
    await stream.synchronized();
  });

  it('hostLaunch', async () => {
    let ran = 0;
    const step = () => void ran++;
    const badStepOptions = fc.oneof(
      badOptions,
      fc.record({ userData: hostile.filter((v) => v !== undefined && !(v instanceof ArrayBuffer && v.byteLength > 0) && !ArrayBuffer.isView(v)) }),
      fc.record({ userData: fc.constant(null).map(detachedView) }),
      fc.record({ timeout: hostile.filter((v) => v !== undefined && !(Number.isInteger(v) && (v as number) >= 1 && (v as number) < 2 ** 31)) }),
    );
    property('Stream.hostLaunch', ['fn', 'options', 'userData', 'timeout'],
      badCalls([fc.constant(step), fc.constantFrom({}, { userData: new Uint8Array(2) }, { timeout: 1000 })], [badFunction, badStepOptions]),
      ([f, o]) => stream.hostLaunch(f as never, o as never));
    stream.hostLaunch((data) => void (ran += 10 + (data as Uint8Array)[0]!), { userData: new Uint8Array([5]) });
    await stream.synchronized();
    expect(ran).toBe(15);
  });

  it('onDone', async () => {
    property('Stream.onDone', ['fn'], badFunction.map((f) => [f]), ([f]) => stream.onDone(f as never));
    const done = await new Promise((resolve) => stream.onDone(resolve));
    expect(done).toBeUndefined();
  });

  it('synchronized', async () => {
    property('Stream.synchronized', ['options', 'spin'],
      fc.oneof(badOptions.map((o) => [o]), fc.record({ spin: badCount.filter((v) => v !== undefined) }).map((o) => [o])),
      ([o]) => stream.synchronized(o as never));
    await stream.synchronized({ spin: 100 });
  });

  it('launchHostFunction', async () => {
    const counter = device.allocHost('u32', 1);
    const badPointer = hostile.filter((v) => !(typeof v === 'bigint' && v > 0n && v < 2n ** 64n));
    property('Stream.launchHostFunction', ['fn', 'userData'],
      fc.oneof(
        badPointer.map((f) => [f, counter]),
        fc.oneof(hostile.filter((v) => v !== undefined && !(typeof v === 'bigint' && v >= 0n && v < 2n ** 64n)), fc.constant(closed)).map((d) => [helpers.countCalls, d]),
        fc.constantFrom(0n, -1n, 2n ** 64n).map((f) => [f, counter]),
      ),
      ([f, d]) => stream.launchHostFunction(f as never, d as never));
    await stream.synchronized();
    expect(counter.data[0]).toBe(0);
    stream.launchHostFunction(helpers.countCalls, counter);
    await stream.synchronized();
    expect(counter.data[0]).toBe(1);
  });
});

describe('bad input to Device', () => {
  it('createStream', async () => {
    property('Device.createStream', ['options', 'priority', 'nonBlocking'],
      fc.oneof(
        badOptions.map((o) => [o]),
        fc.record({ priority: hostile.filter((v) => v !== undefined && !(Number.isInteger(v) && Math.abs(v as number) < 2 ** 31)) }).map((o) => [o]),
        fc.record({ nonBlocking: hostile.filter((v) => v !== undefined && typeof v !== 'boolean') }).map((o) => [o]),
      ),
      ([o]) => device.createStream(o as never));
    const s = device.createStream({ priority: -1, nonBlocking: true });
    expect(s.nonBlocking).toBe(true);
    await s.synchronized();
    s.close();
  });

  it('createEvent', async () => {
    property('Device.createEvent', ['options', 'timing'],
      fc.oneof(badOptions.map((o) => [o]), fc.record({ timing: hostile.filter((v) => v !== undefined && typeof v !== 'boolean') }).map((o) => [o])),
      ([o]) => device.createEvent(o as never));
    const event = device.createEvent({ timing: true });
    stream.record(event);
    await event.completed();
    event.close();
  });

  it('allocHost', () => {
    property('Device.allocHost', ['dtype', 'length'],
      badCalls([fc.constantFrom('u32', 'f64', 'u8'), fc.integer({ min: 0, max: 16 })], [badDType, badCount]),
      ([t, n]) => device.allocHost(t as never, n as never));
    const array = device.allocHost('f64', 5);
    expect([...array.data]).toEqual([0, 0, 0, 0, 0]);
  });
});

describe('bad input to Module.kernel and LaunchConfig', () => {
  it('Module.kernel', async () => {
    const cpu = () => {};
    const badSignature = fc.oneof(
      hostile.filter((v) => !Array.isArray(v) || (v as unknown[]).length > 0),
      fc.array(fc.oneof(hostile, fc.constantFrom('ptr<x>', 'u33', { struct: 0 }, { struct: 4, align: 3 })), { minLength: 1, maxLength: 3 }),
    );
    const badKernelOptions = fc.oneof(badOptions, fc.record({ cpu: hostile.filter((v) => typeof v !== 'function') }));
    property('Module.kernel', ['name', 'signature', 'signature[0]', 'signature[1]', 'signature[2]', 'options', 'options.cpu'],
      badCalls(
        [fc.constantFrom('k', 'store'), fc.constantFrom(['u32'], ['ptr<f32>', 'f64'], []), fc.constant({ cpu })],
        [fc.oneof(hostile.filter((v) => typeof v !== 'string'), fc.constant('')), badSignature, badKernelOptions],
      ),
      ([n, s, o]) => module.kernel(n as never, s as never, o as never));
    const k = module.kernel('k', ['ptr<u32>', 'u32'], { cpu: (_, [x, v]) => void (x[1] = v) });
    stream.launch(k, { grid: 1, block: 1 }, [hostU32, 8]);
    await stream.synchronized();
    expect(hostU32.data[1]).toBe(8);
  });

  it('LaunchConfig', () => {
    const dims = fc.constantFrom<unknown>(1, [2, 2], [1, 1, 4]);
    const dim = (d: unknown) => Number.isInteger(d) && (d as number) >= 1 && (d as number) < 2 ** 32;
    const validDims = (v: unknown) => dim(v) || (Array.isArray(v) && v.length >= 1 && v.length <= 3 && v.every(dim));
    const badDims = fc.oneof(hostile.filter((v) => v !== undefined && !validDims(v)), fc.constantFrom(0, [0], [1, 2, 3, 4], [], [1.5], [2 ** 32]));
    property('LaunchConfig', ['config', 'grid', 'block', 'sharedMem', 'cluster', 'cooperative'],
      fc.oneof(
        badOptions.map((o) => [o]),
        badCalls([dims, dims], [badDims, badDims]).map(([grid, block]) => [{ grid, block }]),
        fc.record({ sharedMem: hostile.filter((v) => v !== undefined && !(Number.isInteger(v) && (v as number) >= 0 && (v as number) < 2 ** 32)) }).map((o) => [{ grid: 1, block: 1, ...o }]),
        fc.record({ cooperative: hostile.filter((v) => v !== undefined && typeof v !== 'boolean') }).map((o) => [{ grid: 1, block: 1, ...o }]),
        fc.constant<unknown[]>([{ grid: 3, block: 1, cluster: 2 }]),
      ),
      ([o]) => new LaunchConfig(o as never));
    const config = new LaunchConfig({ grid: [4, 2], block: 32, sharedMem: 16 });
    expect([config.grid, config.block, config.sharedMem, config.threadsPerBlock]).toEqual([[4, 2, 1], [32, 1, 1], 16, 32]);
  });
});
