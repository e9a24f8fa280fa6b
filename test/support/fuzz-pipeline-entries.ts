// Entry points of pipelines for the fuzzer: lane pools, onStreams, and the operators upload,
// download, launch, host, enqueue, fanOut, with a value's work.device. A valid call runs values
// through a pipeline and checks what comes out; an invalid one is refused when the operator is
// made, or (for what only a value shows) reaches the subscriber as a PipelineError whose cause is
// rxcuda's TypeError or RangeError, and the pool goes on.
import fc from 'fast-check';
import { lastValueFrom, of, toArray, type OperatorFunction } from 'rxjs';
import {
  LanePool, download, enqueue, fanOut, framesFrom, host, lanesFrom, launch, onStreams, upload,
  type Device, type DeviceArray, type Kernel, type LanePoolOptions, type Work,
} from '../../src/index.js';
import type { FuzzWorld } from './fuzz-env.js';
import { same } from './fuzz-env.js';
import { either, invalid, valid, type EntryPoint } from './fuzz-harness.js';
import { BAD_ARRAYS, BAD_NUMBERS, NOT_FUNCTIONS, NOT_NAMES, NOT_OPTIONS, changing, lyingArray, proxied, type Hostile } from './fuzz-hostile.js';
import { BAD_CONFIGS } from './fuzz-kernel-entries.js';
import { hostile } from './fuzz-stream-entries.js';

/** The entry points {@link pipelineEntries} fuzzes, in order. */
export const PIPELINE_ENTRIES = [
  'LanePool.constructor', 'onStreams', 'lanesFrom', 'framesFrom', 'upload', 'download', 'launch', 'host', 'enqueue', 'fanOut', 'Work.device',
];

type AnyWork = Work<any, any, any>;
type Op = OperatorFunction<AnyWork, AnyWork>;
type AddU32 = Kernel<readonly ['ptr<u32>', 'u32', 'u32']>;

const frame = (seed: number, n = 8) => Uint32Array.from({ length: n }, (_, j) => (seed * 40503 + j * 7) >>> 0);
const BAD_POOL_OPTIONS: readonly Hostile[] = [
  ...NOT_OPTIONS,
  ['{ lane: 2 } (misspelt)', () => ({ lane: 2 })],
  ...BAD_NUMBERS.map(([label, make]): Hostile => [`{ lanes: ${label} }`, () => ({ lanes: make() })]),
  ['{ lanes: 0 }', () => ({ lanes: 0 })],
  ['{ lanes: 1025 }', () => ({ lanes: 1025 })],
  ['{ inFlight: 0 }', () => ({ inFlight: 0 })],
  ['{ spin: -1 }', () => ({ spin: -1 })],
  ['{ onDeviceFault: "ignore" }', () => ({ onDeviceFault: 'ignore' })],
  ['{ timeline: {} }', () => ({ timeline: {} })],
];

export function pipelineEntries(w: FuzzWorld): EntryPoint[] {
  const pool = w.pool;
  const addU32 = w.kernels.addU32 as unknown as AddU32;
  /** The values out of `values` through the pool and `ops`, by index. */
  const through = async (values: readonly Uint32Array[], ...ops: Op[]) => {
    const source = of(...values).pipe(onStreams(pool)) as unknown as ReturnType<Op>;
    const out = await lastValueFrom((ops as Op[]).reduce((s, op) => op(s), source).pipe(toArray()));
    return out.sort((a, b) => a.index - b.index);
  };
  const results = (out: AnyWork[], name = 'out') => out.map((v) => [...(v.results[name] as Uint32Array)]);
  const values = fc.integer({ min: 1, max: 3 }).map((n) => Array.from({ length: n }, (_, i) => frame(i + n)));
  const up = upload((x: Uint32Array) => x, 'x') as Op;
  const down = download((v: AnyWork) => v.buffers.x as DeviceArray<'u32'>, 'out') as Op;
  const rejects = (label: string, ops: () => Op[]) => invalid(label, () => through([frame(1)], ...ops()), { via: 'pipeline' });

  return [
    {
      name: 'LanePool.constructor',
      calls: fc.oneof(
        fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 16 })).map(([lanes, inFlight]) =>
          valid(`new LanePool(device, { lanes: ${lanes}, inFlight: ${inFlight} })`, () => new LanePool(w.device, { lanes, inFlight }), (p) => {
            same('the pool: [lanes, closed]', [p.lanes.length, p.closed], [lanes, false]);
            p.close();
          })),
        fc.constant(0).map(() => {
          const options = changing('lanes', [2, 0]);
          return either('new LanePool(device, a lanes getter that answers 2 and 0 in turn)', () => new LanePool(w.device, options as LanePoolOptions), (p) => {
            same('the pool: [lanes]', [p.lanes.length], [2]);
            p.close();
          });
        }),
        hostile(BAD_POOL_OPTIONS, (label, options) => invalid(`new LanePool(device, ${label})`, () => new LanePool(w.device, options() as LanePoolOptions))),
        hostile([['null', () => null], ['[]', () => []], ['[device, device]', () => [w.device, w.device]], ['a Proxy around a Device', () => proxied(w.device)], ['[<hole>]', () => [, ]]],
          (label, devices) => invalid(`new LanePool(${label})`, () => new LanePool(devices() as Device))),
      ),
    },
    {
      name: 'onStreams',
      calls: fc.oneof(
        values.map((vs) => valid(`onStreams(pool) of ${vs.length} values`, () => through(vs, up, down), (out) => same('onStreams: the values back', results(out).flat(), vs.flatMap((v) => [...v])))),
        // Options beside a device are checked when the pool is made, at the subscription (as documented).
        hostile(BAD_POOL_OPTIONS, (label, options) =>
          invalid(`onStreams(device, ${label})`, () => lastValueFrom(of(1).pipe(onStreams(w.device, options() as LanePoolOptions))), { via: 'pipeline' })),
        hostile([['{ lanes: 3 } beside a pool of 2', () => ({ lanes: 3 })], ['{ inFlight: 1 } beside a pool of 4', () => ({ inFlight: 1 })]],
          (label, options) => invalid(`onStreams(pool, ${label})`, () => onStreams(pool, options() as LanePoolOptions))),
        hostile([['null', () => null], ['{}', () => ({})], ['a Proxy around a LanePool', () => proxied(pool)], ['42', () => 42]],
          (label, target) => invalid(`onStreams(${label})`, () => onStreams(target() as LanePool))),
      ),
    },
    {
      name: 'lanesFrom',
      calls: fc.oneof(
        fc.tuple(values, fc.boolean()).map(([vs, async]) => valid(`lanesFrom(${async ? 'an async generator' : 'an array'} of ${vs.length} values, pool)`, () => {
          const source = async ? (async function* () { yield* vs; })() : vs;
          return lastValueFrom((lanesFrom(source, pool) as unknown as ReturnType<Op>).pipe(up, down, toArray()));
        }, (out) => same('lanesFrom: the values back', results(out.sort((a, b) => a.index - b.index)).flat(), vs.flatMap((v) => [...v])))),
        hostile([['null', () => null], ['42', () => 42], ['{}', () => ({})], ['a revoked proxy', NOT_OPTIONS[6]![1]]],
          (label, iterable) => invalid(`lanesFrom(${label}, pool)`, () => lanesFrom(iterable() as never, pool))),
        hostile([['null', () => null], ['{}', () => ({})], ['a Proxy around a LanePool', () => proxied(pool)]], (label, target) => invalid(`lanesFrom([], ${label})`, () => lanesFrom([], target() as LanePool))),
        hostile(BAD_POOL_OPTIONS, (label, options) =>
          invalid(`lanesFrom([1], device, ${label})`, () => lastValueFrom(lanesFrom([1], w.device, options() as LanePoolOptions)), { via: 'pipeline' })),
      ),
    },
    {
      name: 'framesFrom',
      calls: fc.oneof(
        fc.tuple(fc.integer({ min: 1, max: 64 }), fc.nat(4)).map(([length, count]) => valid(`framesFrom(pool, { dtype: 'u32', length: ${length}, count: ${count} }, fill frame i with i + 1)`,
          () => lastValueFrom(framesFrom(pool, { dtype: 'u32', length, count }, (frame, i) => void frame.data.fill(i + 1)).pipe(upload((f) => f, 'x'), download((v) => v.buffers.x, 'out'), toArray())),
          (out) => same('framesFrom: each frame as filled', results(out.sort((a, b) => a.index - b.index) as AnyWork[]).flat(), Array.from({ length: count }, (_, i) => Array(length).fill(i + 1)).flat()))),
        hostile([
          ...NOT_OPTIONS, ['undefined', () => undefined],
          ["{ dtyp: 'u32', length: 8 } (misspelt)", () => ({ dtyp: 'u32', length: 8 })],
          ["{ dtype: 'u33', length: 8 }", () => ({ dtype: 'u33', length: 8 })],
          ...BAD_NUMBERS.map(([label, make]): Hostile => [`{ dtype: 'u32', length: ${label} }`, () => ({ dtype: 'u32', length: make() })]),
          ...BAD_NUMBERS.map(([label, make]): Hostile => [`{ dtype: 'u32', length: 8, count: ${label} }`, () => ({ dtype: 'u32', length: 8, count: make() })]),
          ["{ dtype: 'u32', length: 8, lanes: 3 } beside a pool of 2", () => ({ dtype: 'u32', length: 8, lanes: 3 })],
        ], (label, options) => invalid(`framesFrom(pool, ${label}, fill)`, () => framesFrom(pool, options() as never, () => {}))),
        hostile(NOT_FUNCTIONS, (label, fill) => invalid(`framesFrom(pool, { dtype: 'u32', length: 8 }, ${label})`, () => framesFrom(pool, { dtype: 'u32', length: 8 }, fill() as never))),
      ),
    },
    {
      name: 'upload',
      calls: fc.oneof(
        values.map((vs) => valid(`upload(x => x, 'x') of ${vs.length} values`, () => through(vs, up, down), (out) => same('upload: the values back', results(out).flat(), vs.flatMap((v) => [...v])))),
        fc.integer({ min: 1, max: 32 }).map((n) =>
          valid(`upload of a Uint32Array(${n}) whose length, byteLength, byteOffset and buffer getters lie`, () => through([lyingArray(n).fill(n)], up, down), (out) =>
            same('upload of a lying array', results(out)[0]!, Array(n).fill(n)))),
        hostile(NOT_FUNCTIONS, (label, select) => invalid(`upload(${label})`, () => upload(select() as () => Uint32Array))),
        hostile(NOT_NAMES, (label, name) => invalid(`upload(x => x, ${label})`, () => upload((x: Uint32Array) => x, name() as string))),
        hostile([...BAD_ARRAYS, ['null', () => null], ['[1, 2]', () => [1, 2]]], (label, data) => rejects(`upload(() => ${label})`, () => [upload(() => data() as Uint32Array) as Op])),
      ),
    },
    {
      name: 'download',
      calls: fc.oneof(
        values.map((vs) => valid(`download(v => v.buffers.x, 'out') of ${vs.length} values`, () => through(vs, up, down), (out) => same('download: the values back', results(out).flat(), vs.flatMap((v) => [...v])))),
        values.map((vs) => valid(`download(…, 'out', { into }) of ${vs.length} values`, () => through(vs, up, download((v: AnyWork) => v.buffers.x as DeviceArray<'u32'>, 'out', { into: () => new Uint32Array(8) }) as Op),
          (out) => same('download into: the values back', results(out).flat(), vs.flatMap((v) => [...v])))),
        values.map((vs) => valid(`download(…, 'out', { into: a Uint32Array(8) whose getters lie }) of ${vs.length} values`, () => through(vs, up, download((v: AnyWork) => v.buffers.x as DeviceArray<'u32'>, 'out', { into: () => lyingArray(8) }) as Op),
          (out) => same('download into a lying array: the values back', out.flatMap((v) => [...(v.results.out as Uint32Array)]) /* its iterator reads the array's own length */, vs.flatMap((v) => [...v])))),
        hostile(NOT_FUNCTIONS, (label, select) => invalid(`download(${label})`, () => download(select() as never))),
        hostile(NOT_NAMES, (label, name) => invalid(`download(v => v.buffers.x, ${label})`, () => download((v: AnyWork) => v.buffers.x as DeviceArray<'u32'>, name() as string))),
        hostile([...NOT_OPTIONS, ["{ lend: 'now' }", () => ({ lend: 'now' })], ['{ into: 5 }', () => ({ into: 5 })], ["{ lend: 'next', into: fn }", () => ({ lend: 'next', into: () => new Uint32Array(8) })], ["{ lnd: 'next' }", () => ({ lnd: 'next' })]],
          (label, options) => invalid(`download(v => v.buffers.x, 'out', ${label})`, () => download((v: AnyWork) => v.buffers.x as DeviceArray<'u32'>, 'out', options() as never))),
        hostile([['null', () => null], ['a Uint32Array', () => new Uint32Array(8)], ['a closed array', () => w.closedU32], ['a Proxy around a DeviceArray', () => proxied(w.u32)]],
          (label, memory) => rejects(`download(() => ${label})`, () => [up, download(() => memory() as DeviceArray<'u32'>, 'out') as Op])),
        fc.constant(rejects('download(…, { into: () => a Uint32Array(2) }) (too short)', () => [up, download((v: AnyWork) => v.buffers.x as DeviceArray<'u32'>, 'out', { into: () => new Uint32Array(2) }) as Op])),
      ),
    },
    {
      name: 'launch',
      calls: fc.oneof(
        fc.tuple(values, fc.nat(1000)).map(([vs, add]) =>
          valid(`launch(addU32, config, [v => v.buffers.x, ${add}, 8]) of ${vs.length} values`, () => through(vs, up, launch(addU32, { grid: 1, block: 8 }, [(v: AnyWork) => v.buffers.x as DeviceArray<'u32'>, add, 8]) as Op, down),
            (out) => same('launch: the values added to', results(out).flat(), vs.flatMap((v) => [...v].map((x) => (x + add) >>> 0))))),
        hostile(BAD_CONFIGS.filter(([label]) => label !== 'undefined'), (label, config) =>
          invalid(`launch(addU32, ${label}, [v => v.buffers.x, 1, 8])`, () => through([frame(1)], up, launch(addU32, config() as never, [(v: AnyWork) => v.buffers.x as DeviceArray<'u32'>, 1, 8]) as Op), { via: 'pipeline' })),
        hostile([['a Proxy around a Kernel', () => proxied(addU32)], ['null', () => null], ['{}', () => ({})]],
          (label, kernel) => invalid(`launch(${label}, …)`, () => launch(kernel() as AddU32, { grid: 1, block: 1 }, [w.u32, 1, 1]))),
        hostile([...NOT_OPTIONS, ['{ hooks: 42 }', () => ({ hooks: 42 })], ["{ hooks: 'all' }", () => ({ hooks: 'all' })], ['{ hooks: [null] }', () => ({ hooks: [null] })], ['{ hook: [] } (misspelt)', () => ({ hook: [] })]],
          (label, options) => invalid(`launch(addU32, config, args, ${label})`, () => (launch as (...a: unknown[]) => unknown)(addU32, { grid: 1, block: 1 }, [w.u32, 1, 1], options()))),
        hostile([['[v => v.buffers.x, -1, 8]', () => [(v: AnyWork) => v.buffers.x, -1, 8]], ['[v => v.buffers.x, 1]', () => [(v: AnyWork) => v.buffers.x, 1]], ['[v => v.buffers.x, v => NaN, 8]', () => [(v: AnyWork) => v.buffers.x, () => NaN, 8]], ['[v => null, 1, 8]', () => [() => null, 1, 8]]],
          (label, args) => invalid(`launch(addU32, config, ${label})`, () => through([frame(1)], up, launch(addU32, { grid: 1, block: 8 }, args() as never) as Op), { via: 'pipeline' })),
      ),
    },
    {
      name: 'host',
      calls: fc.oneof(
        fc.tuple(values, fc.constantFrom(undefined, {}, { timeout: 1000 })).map(([vs, options]) => {
          const seen: number[] = [];
          return valid(`host(fn, ${JSON.stringify(options)}) of ${vs.length} values`, () => through(vs, up, host((v: AnyWork) => void seen.push(v.index), options) as Op), (out) => {
            same('host: the values', out.map((v) => v.index), vs.map((_, i) => i));
            same('host: the steps that ran', seen.splice(0).sort(), vs.map((_, i) => i));
          });
        }),
        hostile(NOT_FUNCTIONS, (label, fn) => invalid(`host(${label})`, () => host(fn() as () => void))),
        hostile([...NOT_OPTIONS, ['{ timout: 5 }', () => ({ timout: 5 })], ['{ timeout: -1 }', () => ({ timeout: -1 })], ['{ timeout: NaN }', () => ({ timeout: NaN })], ['{ timeout: 2 ** 53 }', () => ({ timeout: 2 ** 53 })]],
          (label, options) => invalid(`host(fn, ${label})`, () => host(() => {}, options() as never))),
      ),
    },
    {
      name: 'enqueue',
      calls: fc.oneof(
        fc.tuple(values, fc.nat({ max: 2 ** 32 - 1 })).map(([vs, fill]) =>
          valid(`enqueue((v, s) => s.fill(v.buffers.x, ${fill})) of ${vs.length} values`, () => through(vs, up, enqueue((v: AnyWork, s) => s.fill(v.buffers.x as DeviceArray<'u32'>, fill)) as Op, down),
            (out) => same('enqueue: the values filled', results(out).flat(), vs.flatMap((v) => Array(v.length).fill(fill))))),
        hostile(NOT_FUNCTIONS, (label, fn) => invalid(`enqueue(${label})`, () => enqueue(fn() as () => void))),
        hostile([['42', () => 42], ['null', () => null], ['Symbol()', () => Symbol('e')]], (label, name) => invalid(`enqueue(fn, ${label})`, () => (enqueue as (...a: unknown[]) => unknown)(() => {}, name()))),
      ),
    },
    {
      name: 'fanOut',
      calls: fc.oneof(
        fc.tuple(values, fc.integer({ min: 1, max: 4 })).map(([vs, count]) =>
          valid(`fanOut(${count}, (v, s, i) => fill part i) of ${vs.length} values`, () => through(vs, up, fanOut(count, (v: AnyWork, s, i) => {
            const x = v.buffers.x as DeviceArray<'u32'>;
            const part = Math.ceil(x.length / count);
            if (i * part < x.length) s.fill(x.subarray(i * part, Math.min(x.length, (i + 1) * part)), i + 1);
          }) as Op, down), (out) => {
            const part = Math.ceil(8 / count);
            same('fanOut: each part filled by its branch', results(out).flat(), vs.flatMap(() => Array.from({ length: 8 }, (_, j) => Math.floor(j / part) + 1)));
          })),
        hostile([...BAD_NUMBERS, ['0', () => 0], ['2 ** 31', () => 2 ** 31], ['1e6', () => 1e6]], (label, count) => invalid(`fanOut(${label}, branch)`, () => fanOut(count() as number, () => {}))),
        hostile(NOT_FUNCTIONS, (label, branch) => invalid(`fanOut(2, ${label})`, () => fanOut(2, branch() as () => void))),
        hostile([...NOT_OPTIONS, ['{ device: [] } (misspelt)', () => ({ device: [] })], ['{ devices: [null, null] }', () => ({ devices: [null, null] })], ['{ devices: [device] } (one for two)', () => ({ devices: [w.device] })], ['{ devices: [<hole>, device] }', () => ({ devices: [, w.device] })]],
          (label, options) => invalid(`fanOut(2, branch, ${label})`, () => fanOut(2, () => {}, options() as never))),
      ),
    },
    {
      name: 'Work.device',
      calls: fc.oneof(
        fc.tuple(values, fc.constantFrom(1, 8, 16, 64), fc.nat({ max: 2 ** 32 - 1 })).map(([vs, n, fill]) =>
          valid(`v.device('u32', ${n}, 'y') filled with ${fill} of ${vs.length} values`, () => through(vs, up, enqueue((v: AnyWork, s) => s.fill(v.device('u32', n, 'y'), fill)) as Op,
            download((v: AnyWork) => v.buffers.y as DeviceArray<'u32'>, 'out') as Op), (out) => same('work.device: the arrays filled', results(out).flat(), vs.flatMap(() => Array(n).fill(fill))))),
        hostile(BAD_NUMBERS, (label, length) => invalid(`v.device('u32', ${label})`, () => through([frame(1)], up, enqueue((v: AnyWork) => void v.device('u32', length() as number)) as Op), { via: 'pipeline' })),
        hostile([["'u33'", () => 'u33'], ['null', () => null], ['Symbol()', () => Symbol('d')]], (label, dtype) => invalid(`v.device(${label}, 8)`, () => through([frame(1)], up, enqueue((v: AnyWork) => void v.device(dtype() as 'u32', 8)) as Op), { via: 'pipeline' })),
        hostile(NOT_NAMES.filter(([label]) => label !== "''"), (label, name) => invalid(`v.device('u32', 8, ${label})`, () => through([frame(1)], up, enqueue((v: AnyWork) => void v.device('u32', 8, name() as string)) as Op), { via: 'pipeline' })),
      ),
    },
  ];
}
