// Streams made for one test and closed after it, for suites that make several per test.
import { afterEach } from 'vitest';
import type { Device, Stream } from '../../src/index.js';

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
