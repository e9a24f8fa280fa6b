// Entry points of rxcuda/jetstream for the fuzzer, without a server: fromJetStream and toJetStream
// check their arguments before anything connects or subscribes (a valid call gives an Observable
// or an operator, untouched), and connectJetStream checks its options before it connects (a valid
// call to a port nothing listens on rejects with JetStreamError `server-unreachable`).
import fc from 'fast-check';
import { isObservable, lastValueFrom, of, toArray } from 'rxjs';
import { LanePool, onStreams, type Device } from '../../src/index.js';
import { JetStreamCounts, JetStreamError, connectJetStream, fromJetStream, toJetStream } from '../../src/operators/jetstream/index.js';
import type { FuzzWorld } from './fuzz-env.js';
import { same } from './fuzz-env.js';
import { either, invalid, valid, type EntryPoint } from './fuzz-harness.js';
import { NOT_FUNCTIONS, NOT_NAMES, NOT_NUMBERS, NOT_OPTIONS, changing, lyingArray, proxied, type Hostile } from './fuzz-hostile.js';
import { hostile } from './fuzz-stream-entries.js';

/** The entry points {@link jetstreamEntries} fuzzes, in order. */
export const JETSTREAM_ENTRIES = ['fromJetStream', 'toJetStream', 'connectJetStream'];

/** A stand-in for a pull consumer and a JetStream client: the checks look at their methods only. */
const consumer = { fetch: () => undefined, info: () => undefined } as never;
const jetstream = { publish: () => Promise.resolve({ duplicate: false }) } as never;
const connection = { subscribe: () => undefined } as never;
const deadLetter = { jetstream, subject: 'dead.frames', connection };

const NOT_NUMBERS_READABLE = NOT_NUMBERS.filter(([label]) => label !== 'a revoked proxy');
/** Milliseconds no server takes (past 2^63 − 1 ns), nor any timer. */
const BAD_MS: readonly Hostile[] = [['-1', () => -1], ['1e13', () => 1e13], ['2 ** 53', () => 2 ** 53], ['1e308', () => 1e308], ...NOT_NUMBERS_READABLE];
/** Milliseconds no Node timer takes (past 2^31 − 1 it fires at once). */
const BAD_TIMER_MS: readonly Hostile[] = [['0', () => 0], ['2 ** 31', () => 2 ** 31], ...BAD_MS];

/** Options of fromJetStream that no worker takes, beside a valid `process` and `deadLetter`. */
const BAD_WORKER_OPTIONS: readonly Hostile[] = [
  ...NOT_OPTIONS,
  ['undefined', () => undefined],
  ['{ procss } (misspelt)', () => ({ procss: (x: unknown) => x, deadLetter })],
  ['no deadLetter', () => ({ process: (x: unknown) => x })],
  ['{ deadLetter: null }', () => ({ process: (x: unknown) => x, deadLetter: null })],
  ["{ deadLetter: { subject: 'a b' } }", () => ({ process: (x: unknown) => x, deadLetter: { jetstream, subject: 'a b' } })],
  ['{ deadLetter: { jetstream: {} } }', () => ({ process: (x: unknown) => x, deadLetter: { jetstream: {}, subject: 'dead', connection } })],
  ['{ deadLetter: { connection: {} } } (and no drain)', () => ({ process: (x: unknown) => x, deadLetter: { jetstream, subject: 'dead', connection: {} } })],
  ['{ deadLetter: { subjct } } (misspelt)', () => ({ process: (x: unknown) => x, deadLetter: { jetstream, subjct: 'dead' } })],
  ['{ process: 42 }', () => ({ process: 42, deadLetter })],
  ...([['frameBytes', [['0', () => 0], ['-1', () => -1], ['0.5', () => 0.5], ['2 ** 40', () => 2 ** 40], ['2 ** 53', () => 2 ** 53], ['1e308', () => 1e308], ...NOT_NUMBERS_READABLE]],
    ['expires', [['999', () => 999], ...BAD_MS]], ['nakDelay', BAD_MS], ['progressEvery', BAD_TIMER_MS], ['idle', BAD_TIMER_MS],
    ['maxDeliver', [['0', () => 0], ['1.5', () => 1.5], ['2 ** 53', () => 2 ** 53], ['NaN', () => NaN]]]] as const)
    .flatMap(([key, bad]) => bad.map(([label, make]): Hostile => [`{ ${key}: ${label} }`, () => ({ process: (x: unknown) => x, deadLetter, [key]: make() })])),
  ["{ stopOn: ['TERM'] }", () => ({ process: (x: unknown) => x, deadLetter, stopOn: ['TERM'] })],
  ["{ stopOn: 'SIGTERM' }", () => ({ process: (x: unknown) => x, deadLetter, stopOn: 'SIGTERM' })],
  ['{ signal: {} }', () => ({ process: (x: unknown) => x, deadLetter, signal: {} })],
  ['{ drain: {} }', () => ({ process: (x: unknown) => x, deadLetter, drain: {} })],
  ['{ counts: {} }', () => ({ process: (x: unknown) => x, deadLetter, counts: {} })],
  ['{ decode: 42 }', () => ({ process: (x: unknown) => x, deadLetter, decode: 42 })],
];

export function jetstreamEntries(w: FuzzWorld): EntryPoint[] {
  const closedPool = new LanePool(w.device, { lanes: 1 });
  closedPool.close();
  const validWorker = fc.record({
    frameBytes: fc.option(fc.integer({ min: 1, max: 1 << 24 }), { nil: undefined }),
    expires: fc.option(fc.integer({ min: 1000, max: 60_000 }), { nil: undefined }),
    nakDelay: fc.option(fc.oneof(fc.integer({ min: 0, max: 60_000 }), fc.constant(2 ** 31)), { nil: undefined }),
    maxDeliver: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
    idle: fc.option(fc.integer({ min: 1, max: 60_000 }), { nil: undefined }),
    stopOn: fc.option(fc.constant(['SIGTERM'] as NodeJS.Signals[]), { nil: undefined }),
  }, { requiredKeys: [] });
  return [
    {
      name: 'fromJetStream',
      calls: fc.oneof(
        validWorker.map((options) => valid(`fromJetStream(consumer, pool, { process, deadLetter, ...${JSON.stringify(options)} })`,
          () => fromJetStream(consumer, w.pool, { process: (x: unknown) => x as never, deadLetter, counts: new JetStreamCounts(), ...options } as never), (o) => same('an Observable, not subscribed', [isObservable(o)], [true]))),
        fc.constant(0).map(() => {
          const options = changing('frameBytes', [1024, 2 ** 40], { process: (x: unknown) => x, deadLetter });
          return either('fromJetStream(consumer, pool, a frameBytes getter that answers 1024 and 2 ** 40 in turn)', () => fromJetStream(consumer, w.pool, options as never),
            (o) => same('an Observable, not subscribed', [isObservable(o)], [true]));
        }),
        hostile(BAD_WORKER_OPTIONS, (label, options) => invalid(`fromJetStream(consumer, pool, ${label})`, () => fromJetStream(consumer, w.pool, options() as never))),
        hostile([['null', () => null], ['{}', () => ({})], ['{ fetch }', () => ({ fetch() {} })]], (label, c) => invalid(`fromJetStream(${label}, pool, …)`, () => fromJetStream(c() as never, w.pool, { process: (x) => x as never, deadLetter }))),
        hostile([['null', () => null], ['a closed LanePool', () => closedPool], ['a Device', () => w.device as Device], ['a Proxy around a LanePool', () => proxied(w.pool)]],
          (label, pool) => invalid(`fromJetStream(consumer, ${label}, …)`, () => fromJetStream(consumer, pool() as LanePool, { process: (x) => x as never, deadLetter }))),
      ),
    },
    {
      name: 'toJetStream',
      calls: fc.oneof(
        fc.tuple(fc.constantFrom('results.frames', 'a.b.c', 'x'), fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }), fc.option(fc.integer({ min: 1, max: 60_000 }), { nil: undefined })).map(([subject, retries, timeout]) =>
          valid(`toJetStream(js, '${subject}', select, ${JSON.stringify({ retries, timeout })})`, () => toJetStream(jetstream, subject, () => new Uint8Array(4), { retries, timeout } as never),
            (op) => same('an operator', [typeof op], ['function']))),
        fc.tuple(fc.integer({ min: 1, max: 16 }), fc.boolean()).map(([n, lying]) => {
          const data = (lying ? lyingArray(n) : new Uint32Array(n)).map((_, i) => i * 0x01010101);
          const published: Uint8Array[] = [];
          const recorder = { publish: (_: string, bytes: Uint8Array) => (published.push(bytes.slice()), Promise.resolve({ duplicate: false })) } as never;
          return valid(`toJetStream(js, 'results', () => a Uint32Array(${n})${lying ? ' whose getters lie' : ''}) over a value`,
            () => {
              published.length = 0;
              return lastValueFrom(of(1).pipe(onStreams(w.pool), toJetStream(recorder, 'results', () => data, { msgID: (v) => `value-${v.index}` }), toArray()));
            },
            (out) => same('toJetStream: [values, bytes published]', [out.length, ...published.flatMap((b) => [...b])], [1, ...new Uint8Array(Uint32Array.from(data).buffer)]));
        }),
        hostile([['null', () => null], ['{}', () => ({})], ['42', () => 42]], (label, js) => invalid(`toJetStream(${label}, …)`, () => toJetStream(js() as never, 'results', () => new Uint8Array(4)))),
        hostile([...NOT_NAMES, ["'a b'", () => 'a b']], (label, subject) => invalid(`toJetStream(js, ${label}, …)`, () => toJetStream(jetstream, subject() as string, () => new Uint8Array(4)))),
        hostile(NOT_FUNCTIONS, (label, select) => invalid(`toJetStream(js, 'results', ${label})`, () => toJetStream(jetstream, 'results', select() as never))),
        hostile([...NOT_OPTIONS, ['{ retris: 2 } (misspelt)', () => ({ retris: 2 })], ['{ retries: 0 }', () => ({ retries: 0 })], ['{ retries: NaN }', () => ({ retries: NaN })], ['{ retries: 1e308 }', () => ({ retries: 1e308 })],
          ['{ timeout: 0 }', () => ({ timeout: 0 })], ['{ timeout: 2 ** 31 }', () => ({ timeout: 2 ** 31 })], ['{ msgID: 5 }', () => ({ msgID: 5 })], ["{ headers: 'x' }", () => ({ headers: 'x' })]],
          (label, options) => invalid(`toJetStream(js, 'results', select, ${label})`, () => toJetStream(jetstream, 'results', () => new Uint8Array(4), options() as never))),
      ),
    },
    {
      name: 'connectJetStream',
      // Each valid call tries a connection: fewer repeats.
      repeats: 30,
      calls: fc.oneof(
        fc.constantFrom('nats://127.0.0.1:1', ['nats://127.0.0.1:1']).map((servers) =>
          valid(`connectJetStream({ servers: ${JSON.stringify(servers)}, … }) (nothing listens there)`, () =>
            connectJetStream({ servers, stream: 'FRAMES', consumer: 'workers', connection: { reconnect: false, timeout: 1000 } }).then((c) => c as unknown, (error: unknown) => error),
          (error) => same('connectJetStream: [JetStreamError, reason]', [error instanceof JetStreamError, (error as JetStreamError).reason], [true, 'server-unreachable']))),
        hostile([
          ...NOT_OPTIONS, ['undefined', () => undefined],
          ['{ srvers } (misspelt)', () => ({ srvers: 'nats://127.0.0.1:1', stream: 'S', consumer: 'c' })],
          ['{ servers: [] }', () => ({ servers: [], stream: 'S', consumer: 'c' })],
          ['{ servers: [42] }', () => ({ servers: [42], stream: 'S', consumer: 'c' })],
          ['{ servers: [<hole>] }', () => ({ servers: [, ], stream: 'S', consumer: 'c' })],
          ["{ stream: 'a b' }", () => ({ servers: 'nats://127.0.0.1:1', stream: 'a b', consumer: 'c' })],
          ["{ consumer: '' }", () => ({ servers: 'nats://127.0.0.1:1', stream: 'S', consumer: '' })],
          ['{ connection: 5 }', () => ({ servers: 'nats://127.0.0.1:1', stream: 'S', consumer: 'c', connection: 5 })],
        ], (label, options) => invalid(`connectJetStream(${label})`, () => connectJetStream(options() as never), { via: 'reject' })),
      ),
    },
  ];
}
