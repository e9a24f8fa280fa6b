// Streams and lane pools made for tests and closed after them.
import { afterAll, afterEach } from 'vitest';
import { LanePool, type Device, type LanePoolOptions, type Stream } from '../../src/index.js';

/**
 * Registers an `afterEach` that closes the streams made through the returned function since the
 * last test; `device()` is read when a stream is made (inside the test).
 */
export function streamsPerTest(device: () => Device): () => Stream {
  const streams: Stream[] = [];
  afterEach(() => streams.splice(0).forEach((s) => s.close()));
  return () => {
    const s = device().createStream({ nonBlocking: true });
    streams.push(s);
    return s;
  };
}

/**
 * Registers `after` (`afterAll` by default, or `afterEach`) to close the LanePools made through
 * the returned function; `device()` is read when a pool is made (inside the test).
 */
export function lanePools(device: () => Device, after: typeof afterAll = afterAll): (options?: LanePoolOptions) => LanePool {
  const pools: LanePool[] = [];
  after(() => pools.splice(0).forEach((p) => p.close()));
  return (options) => {
    const p = new LanePool(device(), options);
    pools.push(p);
    return p;
  };
}

/**
 * Enqueues a host step on `stream` that stays unsettled until released: the returned Promise
 * gives the release once the step has started (the lane's later work then waits behind it).
 */
export function heldStep(stream: Stream): Promise<() => void> {
  return new Promise((started) => {
    stream.hostLaunch(() => new Promise<void>((release) => started(release)));
  });
}
