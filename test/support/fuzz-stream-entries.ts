// Entry points of streams, devices, memory and events for the fuzzer, each with its valid calls
// (checked by what they leave in memory) and invalid ones (hostile values in each argument).
import fc from 'fast-check';
import { DeviceArray, Event } from '../../src/index.js';
import type { FuzzWorld } from './fuzz-env.js';
import { same } from './fuzz-env.js';
import { either, invalid, valid, type EntryPoint, type FuzzCall } from './fuzz-harness.js';
import { BAD_ARRAYS, BAD_NUMBERS, NOT_FUNCTIONS, NOT_NUMBERS, NOT_OPTIONS, changing, lyingArray, proxied, type Hostile } from './fuzz-hostile.js';

const DTYPES = ['u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'f32', 'f64', 'f16', 'bf16', 'i64', 'u64'] as const;

/**
 * A call for each hostile value, made by `call(label, value)`: the value is made when the call is
 * drawn, so that each repetition of the call passes the same one.
 */
export function hostile(values: readonly Hostile[], call: (label: string, value: () => unknown) => FuzzCall): fc.Arbitrary<FuzzCall> {
  return fc.constantFrom(...values).map(([label, make]) => {
    const value = make();
    return call(label, () => value);
  });
}

/** The entry points {@link streamEntries} fuzzes, in order. */
export const STREAM_ENTRIES = [
  'Stream.alloc', 'Stream.fill', 'Stream.copy', 'Stream.record', 'Stream.wait', 'Stream.hostLaunch', 'Stream.synchronized',
  'Device.createStream', 'Device.createEvent', 'Device.allocHost', 'Device.registerHost', 'DeviceArray.subarray', 'Event.elapsedSince',
];

export function streamEntries(w: FuzzWorld): EntryPoint[] {
  const s = w.stream;
  return [
    {
      name: 'Stream.alloc',
      calls: fc.oneof(
        fc.tuple(fc.constantFrom(...DTYPES), fc.nat(100)).map(([dtype, n]) =>
          valid(`alloc('${dtype}', ${n})`, () => s.alloc(dtype, n), (a) => {
            same('alloc: [dtype, length, open]', [a.dtype, a.length, a.closed], [dtype, n, false]);
            a.close();
          }),
        ),
        hostile(BAD_NUMBERS, (label, make) => invalid(`alloc('u32', ${label})`, () => s.alloc('u32', make() as number))),
        hostile([...NOT_NUMBERS, ['u33', () => 'u33'], ['U32', () => 'U32'], ['undefined', () => undefined]], (label, make) => invalid(`alloc(${label}, 4)`, () => s.alloc(make() as 'u32', 4))),
        fc.constant(invalid('closedStream.alloc(u32, 4)', () => w.closedStream.alloc('u32', 4))),
      ),
    },
    {
      name: 'Stream.fill',
      calls: fc.oneof(
        fc.tuple(fc.nat(63), fc.integer({ min: 1, max: 64 }), fc.nat({ max: 2 ** 32 - 1 })).map(([at, n, v]) => {
          const end = Math.min(64, at + n);
          return valid(`fill(u32.subarray(${at}, ${end}), ${v})`, () => {
            s.fill(w.u32, 0);
            s.fill(w.u32.subarray(at, end), v);
          }, async () => same('fill', await w.read(w.u32), Array.from({ length: 64 }, (_, i) => (i >= at && i < end ? v : 0))));
        }),
        fc.constantFrom(-0, 0.5, -2.25, 1e30, 3.4e38).map((v) =>
          valid(`fill(f32, ${Object.is(v, -0) ? '-0' : v})`, () => s.fill(w.f32, v), async () => same('fill f32', await w.readFloat(w.f32), Array(64).fill(Math.fround(v))))),
        hostile([...NOT_NUMBERS, ['-1', () => -1], ['0.5', () => 0.5], ['2 ** 32', () => 2 ** 32], ['2 ** 53', () => 2 ** 53], ['1e308', () => 1e308], ['a changing valueOf', () => changing('valueOf', [() => 1, () => 'x'])]],
          (label, make) => invalid(`fill(u32, ${label})`, () => s.fill(w.u32, make() as number))),
        hostile([['a closed array', () => w.closedU32], ['a Proxy around a DeviceArray', () => proxied(w.u32)], ['a Uint32Array', () => new Uint32Array(4)], ['null', () => null], ['a revoked proxy', NOT_OPTIONS[6]![1]]],
          (label, make) => invalid(`fill(${label}, 1)`, () => s.fill(make() as DeviceArray<'u32'>, 1))),
      ),
    },
    {
      name: 'Stream.copy',
      calls: fc.oneof(
        fc.tuple(fc.nat({ max: 2 ** 32 - 1 }), fc.integer({ min: 1, max: 32 })).map(([v, n]) =>
          valid(`copy(u32b[0..${n}], u32[0..${n}])`, () => {
            s.fill(w.u32, v);
            s.fill(w.u32b, 7);
            s.copy(w.u32b.subarray(0, n), w.u32.subarray(0, n));
          }, async () => same('copy', await w.read(w.u32b), Array.from({ length: 64 }, (_, i) => (i < n ? v : 7))))),
        hostile([
          ['f32 (another element type)', () => w.f32], ['a shorter array', () => w.u32.subarray(0, 8)], ['a closed array', () => w.closedU32],
          ['a Proxy around a DeviceArray', () => proxied(w.u32)], ['a Uint32Array', () => new Uint32Array(64)], ['null', () => null], ['{}', () => ({})],
        ], (label, make) => invalid(`copy(u32b, ${label})`, () => s.copy(w.u32b, make() as DeviceArray<'u32'>))),
        fc.constant(invalid('closedStream.copy(u32b, u32)', () => w.closedStream.copy(w.u32b, w.u32))),
      ),
    },
    {
      name: 'Stream.record',
      calls: fc.oneof(
        fc.constantFrom(undefined, {}, { timing: true }, { timing: false }).map((o) =>
          valid(`record(${JSON.stringify(o)})`, () => s.record(o), async (e) => {
            await e.completed();
            same('record: [query, timing]', [e.query(), e.timing], [true, o?.timing === true]);
            e.close();
          })),
        hostile([...NOT_OPTIONS.filter(([l]) => l !== 'null'), ['{ timming: true }', () => ({ timming: true })], ['{ timing: 1 }', () => ({ timing: 1 })], ['a closed Event', () => closedEvent()], ['a Proxy around an Event', () => proxied(w.device.createEvent())]],
          (label, make) => invalid(`record(${label})`, () => s.record(make() as never))),
      ),
    },
    {
      name: 'Stream.wait',
      calls: fc.oneof(
        fc.constant(valid('wait(an event recorded on the stream)', () => {
          const e = s.record();
          s.wait(e);
          return e;
        }, async (e) => {
          await s.synchronized();
          same('wait: query', [e.query()], [true]);
          e.close();
        })),
        hostile([['null', () => null], ['{}', () => ({})], ['a closed Event', () => closedEvent()], ['a Proxy around an Event', () => proxied(s.record())], ['42', () => 42], ['a Stream', () => s]],
          (label, make) => invalid(`wait(${label})`, () => s.wait(make() as Event))),
      ),
    },
    {
      name: 'Stream.hostLaunch',
      calls: fc.oneof(
        fc.constantFrom(undefined, {}, { timeout: 1000 }).map((o) => {
          let ran = 0;
          return valid(`hostLaunch(fn, ${JSON.stringify(o)})`, () => {
            s.hostLaunch(() => void ran++, o);
            return ran;
          }, async (before) => {
            await s.synchronized();
            same('hostLaunch: the step ran once', [ran], [before + 1]);
          });
        }),
        hostile(NOT_FUNCTIONS, (label, make) => invalid(`hostLaunch(${label})`, () => s.hostLaunch(make() as () => void))),
        hostile([...NOT_OPTIONS, ['{ timout: 5 }', () => ({ timout: 5 })], ['{ timeout: NaN }', () => ({ timeout: NaN })], ['{ timeout: 2 ** 31 }', () => ({ timeout: 2 ** 31 })], ['{ timeout: -0 }', () => ({ timeout: -0 })]],
          (label, make) => invalid(`hostLaunch(fn, ${label})`, () => s.hostLaunch(() => {}, make() as never))),
      ),
    },
    {
      name: 'Stream.synchronized',
      calls: fc.oneof(
        fc.constantFrom(undefined, {}, { spin: 0 }, { spin: 100 }).map((o) => valid(`synchronized(${JSON.stringify(o)})`, () => s.synchronized(o))),
        hostile([...NOT_OPTIONS.filter(([l]) => l !== 'null'), ['{ spinn: 1 }', () => ({ spinn: 1 })], ['{ spin: -1 }', () => ({ spin: -1 })], ['{ spin: NaN }', () => ({ spin: NaN })], ['{ spin: 1e308 }', () => ({ spin: 1e308 })]],
          (label, make) => invalid(`synchronized(${label})`, () => s.synchronized(make() as never))),
      ),
    },
    {
      name: 'Device.createStream',
      calls: fc.oneof(
        fc.constantFrom(undefined, {}, { nonBlocking: true }, { priority: 0 }, { priority: -1, nonBlocking: false }).map((o) =>
          valid(`createStream(${JSON.stringify(o)})`, () => w.device.createStream(o), async (t) => {
            const a = t.alloc('u32', 4);
            t.fill(a, 5);
            const h = w.device.allocHost('u32', 4);
            t.copy(h, a);
            await t.synchronized();
            same('a new stream fills', [...h.data], [5, 5, 5, 5]);
            a.close();
            h.close();
            t.close();
          })),
        fc.constant(0).map(() => {
          const options = changing('priority', [0, 2 ** 31]);
          return either('createStream(a priority getter that answers 0 and 2 ** 31 in turn)', () => w.device.createStream(options as never), (t) => {
            same('the stream: [priority, closed]', [t.priority, t.closed], [0, false]);
            t.close();
          });
        }),
        hostile([...NOT_OPTIONS.filter(([l]) => l !== 'null'), ['{ nonblocking: true }', () => ({ nonblocking: true })], ['{ priority: 2 ** 31 }', () => ({ priority: 2 ** 31 })], ['{ priority: NaN }', () => ({ priority: NaN })], ['{ priority: 1n }', () => ({ priority: 1n })]],
          (label, make) => invalid(`createStream(${label})`, () => w.device.createStream(make() as never))),
      ),
    },
    {
      name: 'Device.createEvent',
      calls: fc.oneof(
        fc.constantFrom(undefined, {}, { timing: true }).map((o) =>
          valid(`createEvent(${JSON.stringify(o)})`, () => w.device.createEvent(o), (e) => {
            same('createEvent: [timing, closed]', [e.timing, e.closed], [o?.timing === true, false]);
            e.close();
          })),
        hostile([...NOT_OPTIONS.filter(([l]) => l !== 'null'), ['{ Timing: true }', () => ({ Timing: true })], ['{ timing: "yes" }', () => ({ timing: 'yes' })]],
          (label, make) => invalid(`createEvent(${label})`, () => w.device.createEvent(make() as never))),
      ),
    },
    {
      name: 'Device.allocHost',
      calls: fc.oneof(
        fc.tuple(fc.constantFrom(...DTYPES), fc.nat(100)).map(([dtype, n]) =>
          valid(`allocHost('${dtype}', ${n})`, () => w.device.allocHost(dtype, n), (a) => {
            same('allocHost: [dtype, length, zeroed]', [a.dtype, a.length, Array.from(a.data as ArrayLike<number | bigint>).every((v) => v == 0)], [dtype, n, true]);
            a.close();
          })),
        hostile(BAD_NUMBERS, (label, make) => invalid(`allocHost('u32', ${label})`, () => w.device.allocHost('u32', make() as number))),
        hostile([['u33', () => 'u33'], ['null', () => null], ['Symbol()', () => Symbol('d')]], (label, make) => invalid(`allocHost(${label}, 4)`, () => w.device.allocHost(make() as 'u32', 4))),
      ),
    },
    {
      name: 'Device.registerHost',
      calls: fc.oneof(
        fc.integer({ min: 1, max: 64 }).map((n) =>
          valid(`registerHost(Uint32Array(${n}))`, () => w.device.registerHost(new Uint32Array(n).fill(n)), (h) => {
            same('registerHost: [length, byteLength, data]', [h.length, h.byteLength, h.data.every((v) => v === n)], [n, 4 * n, true]);
            h.close();
          })),
        fc.integer({ min: 1, max: 64 }).map((n) =>
          valid(`registerHost(a Uint32Array(${n}) whose length, byteLength, byteOffset and buffer getters lie)`, () => w.device.registerHost(lyingArray(n)), (h) => {
            same('registerHost of a lying array: [length, byteLength]', [h.length, h.byteLength], [n, 4 * n]);
            h.close();
          })),
        hostile([...BAD_ARRAYS, ['null', () => null], ['[1, 2, 3]', () => [1, 2, 3]], ['a Proxy around a Uint32Array', () => proxied(new Uint32Array(4))]],
          (label, make) => invalid(`registerHost(${label})`, () => w.device.registerHost(make() as Uint32Array))),
      ),
    },
    {
      name: 'DeviceArray.subarray',
      calls: fc.oneof(
        fc.tuple(fc.nat(64), fc.nat(64)).filter(([a, b]) => a <= b).map(([a, b]) =>
          valid(`u32.subarray(${a}, ${b})`, () => w.u32.subarray(a, b), (v) => same('subarray: [length, byteOffset]', [v.length, Number(v.ptr - w.u32.ptr)], [b - a, 4 * a]))),
        hostile([...NOT_NUMBERS.filter(([l]) => l !== 'NaN'), ['0.5', () => 0.5], ['2 ** 53', () => 2 ** 53], ['1e308', () => 1e308], ['65', () => 65]],
          (label, make) => invalid(`u32.subarray(0, ${label})`, () => w.u32.subarray(0, make() as number))),
      ),
    },
    {
      name: 'Event.elapsedSince',
      calls: fc.oneof(
        fc.constant(valid('end.elapsedSince(start), both timed', async () => {
          const start = s.record({ timing: true }), end = s.record({ timing: true });
          await end.completed();
          const ms = end.elapsedSince(start);
          start.close();
          end.close();
          return ms;
        }, (ms) => same('elapsedSince: a duration', [typeof ms === 'number' && ms >= 0 && ms < 5000], [true]))),
        hostile([['null', () => null], ['an untimed event', () => s.record()], ['a Proxy around a timed Event', () => proxied(s.record({ timing: true }))], ['a closed Event', () => closedEvent()]],
          (label, make) => {
            const end = s.record({ timing: true });
            return invalid(`timed.elapsedSince(${label})`, () => end.elapsedSince(make() as Event));
          }),
      ),
    },
  ];

  function closedEvent(): Event {
    const e = w.device.createEvent();
    e.close();
    return e;
  }
}
