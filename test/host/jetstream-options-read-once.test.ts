// fromJetStream's options are read once each, signal names too: an option whose getter answers a
// valid value when checked and another one later is kept as it was checked.
import { afterAll, describe, expect, it } from 'vitest';
import { Device, LanePool } from '../../src/index.js';
import { checkWorkerOptions } from '../../src/operators/jetstream/options.js';

const pool = new LanePool(Device.host(), { lanes: 1 });
afterAll(() => pool.close());
const consumer = { fetch() {}, info() {} } as never;
const connection = { subscribe() {}, drain: async () => {} };
const options = () => ({ process: (x: unknown) => x, deadLetter: { jetstream: { publish() {} }, subject: 'dead', connection } as object });

/** `target` with `key` a getter that answers `first`, then `later` on every read after. */
function turning<O extends object>(target: O, key: string, first: unknown, later: unknown): O {
  let reads = 0;
  Object.defineProperty(target, key, { get: () => (reads++ === 0 ? first : later), enumerable: true });
  return target;
}

const checked = (given: object) => checkWorkerOptions(consumer, pool, given as never);

describe('fromJetStream', () => {
  it('keeps each option as it was checked, whatever its getter answers when read again', () => {
    const process = (x: unknown) => x;
    expect(checked(turning(options(), 'process', process, 'x')).process).toBe(process);
    expect(checked(turning(options(), 'maxDeliver', 5, undefined)).maxDeliver).toBe(5);
    expect(checked(turning(options(), 'idle', 5, -1)).idle).toBe(5);
    expect(checked(turning(options(), 'progressEvery', 5, 0)).progressEvery).toBe(5);
    expect(checked(turning(options(), 'decode', undefined, 'x')).decode).toBeUndefined();
    expect(checked(turning(options(), 'stopOn', ['SIGTERM'], 'x')).stopOn).toEqual(['SIGTERM']);
    const given = options();
    turning(given.deadLetter, 'subject', 'dead', '');
    expect(checked(given).deadLetter.subject).toBe('dead');
  });

  it('refuses stopOn with a hole, as it refuses one with undefined', () => {
    const refusal = new TypeError('Expected `stopOn` to be an array of signal names such as SIGTERM, got an array of 2');
    // eslint-disable-next-line no-sparse-arrays
    expect(() => checked({ ...options(), stopOn: ['SIGTERM', ,] })).toThrow(refusal);
    expect(() => checked({ ...options(), stopOn: ['SIGTERM', undefined] })).toThrow(refusal);
  });
});
