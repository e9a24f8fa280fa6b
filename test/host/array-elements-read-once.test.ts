// Arrays of devices and addresses are read element by element once: an element whose getter
// answers a valid value and then an invalid one is taken for the value that was checked.
import { afterAll, describe, expect, it } from 'vitest';
import { lastValueFrom, range } from 'rxjs';
import { Device, LanePool, fanOut, onStreams } from '../../src/index.js';
import { JetStreamError, connectJetStream } from '../../src/operators/jetstream/index.js';

const device = Device.host();
const pools: LanePool[] = [];
afterAll(() => pools.splice(0).forEach((p) => p.close()));

/** An array of one element whose getter answers `first`, then `later` on every read after. */
function turning<T>(first: T, later: unknown): T[] {
  const array: unknown[] = [];
  let reads = 0;
  Object.defineProperty(array, 0, { get: () => (reads++ === 0 ? first : later), enumerable: true });
  return array as T[];
}

describe('LanePool', () => {
  it('keeps the devices it checked, whatever an element answers when read again', () => {
    const pool = new LanePool(turning(device, 'x'), { lanes: 1 });
    pools.push(pool);
    expect(pool.devices).toEqual([device]);
    expect(pool.device).toBe(device);
  });

  it('refuses an element that is no Device when read first, and shows it as read', () => {
    expect(() => new LanePool(turning('x', device) as never)).toThrow(
      new TypeError('Expected `devices` to be a Device or a non-empty array of distinct Devices of one backend, got ["x"]'),
    );
  });
});

describe('fanOut', () => {
  it('runs each branch on the device it checked, whatever an element answers when read again', async () => {
    const pool = new LanePool(device, { lanes: 1 });
    pools.push(pool);
    const on: Device[] = [];
    await lastValueFrom(range(0, 2).pipe(onStreams(pool), fanOut(1, (_, stream) => void on.push(stream.device), { devices: turning(device, 'x') })));
    expect(on).toEqual([device, device]);
  });
});

describe('connectJetStream', () => {
  it('connects to the addresses it checked, whatever an element answers when read again', async () => {
    const error = await connectJetStream({ servers: turning('nats://127.0.0.1:1', 5), stream: 'S', consumer: 'C' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JetStreamError);
    expect((error as JetStreamError).reason).toBe('server-unreachable');
    expect((error as Error).message).toMatch(/^No NATS server answered at nats:\/\/127\.0\.0\.1:1 \(/);
  });
});
