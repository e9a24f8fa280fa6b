// The road from the main thread to the driver: a stream's commands go to its device thread (on a
// GPU; a host stream's queue on the host device), which submits them in order. A submission that
// fails is heard asynchronously, as the stream's error; nothing given to that stream after it runs,
// and its completion points settle with the failure. Cross-stream order holds across threads.
import { expect, it } from 'vitest';
import { CudaError, type Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';

/** CUDA_ERROR_UNKNOWN: not sticky, so only the stream fails, not its device. */
const UNKNOWN = 999;

/** Resolves with the first error the stream reports. */
function nextError(stream: Stream): Promise<unknown> {
  return new Promise((resolve) => stream.once('error', resolve));
}

describeBackends('a failed submission', (getDevice) => {
  it("reaches the stream's error listener and its completion points, and nothing given after it runs", async () => {
    const device = getDevice();
    const s = device.createStream();
    const host = device.allocHost('u32', 4);
    s.fill(host, 1);
    await s.synchronized();
    const reported = nextError(s);
    expect(s.engine.native.failNext(UNKNOWN)).toBe(true);
    s.fill(host, 2); // fails when it is submitted: nothing is thrown here
    s.fill(host, 3); // given after the failure: never runs
    const settled = new Promise<unknown>((resolve) => s.onDone(resolve));
    const error = await reported;
    expect(error).toBeInstanceOf(CudaError);
    expect(error).toMatchObject({ code: UNKNOWN, name: 'CUDA_ERROR_UNKNOWN', call: 'cuMemsetD32Async' });
    expect(await settled).toMatchObject({ code: UNKNOWN });
    expect([...host.data]).toEqual([1, 1, 1, 1]);
    // What is given from now on is refused with the failure, at once.
    expect(() => s.fill(host, 4)).toThrow(expect.objectContaining({ code: UNKNOWN }));
    // The device and its other streams go on.
    const other = device.createStream();
    other.fill(host, 5);
    await other.synchronized();
    expect([...host.data]).toEqual([5, 5, 5, 5]);
    other.close();
    s.close();
    host.close();
  });

  it('settles a pipeline-like chain of waits: every wait behind the failure resolves or rejects', async () => {
    const device = getDevice();
    const s = device.createStream();
    const host = device.allocHost('u32', 1);
    const reported = nextError(s);
    expect(s.engine.native.failNext(UNKNOWN)).toBe(true);
    s.fill(host, 7);
    const waits = [s.synchronized(), s.flushed(), new Promise<unknown>((resolve) => s.onDone(resolve))];
    const outcomes = await Promise.allSettled(waits);
    // synchronized() reports the failure; flushed() only says that nothing is left to submit.
    expect(outcomes[0]).toMatchObject({ status: 'rejected', reason: { code: UNKNOWN } });
    expect(outcomes[1]).toMatchObject({ status: 'fulfilled' });
    expect(outcomes[2]).toMatchObject({ status: 'fulfilled', value: { code: UNKNOWN } });
    expect(await reported).toMatchObject({ code: UNKNOWN });
    expect(host.data[0]).toBe(0);
    s.close();
    host.close();
  });
});

describeBackends('cross-stream order', (getDevice) => {
  it('holds over 1000 streams chained by records and waits, with host steps between them', async () => {
    const device = getDevice();
    const count = 1000;
    const streams = Array.from({ length: count }, () => device.createStream({ nonBlocking: true }));
    const cells = streams.map((s) => s.alloc('u32', 1));
    const steps: number[] = [];
    streams[0]!.fill(cells[0]!, 42);
    let event = streams[0]!.record();
    for (let i = 1; i < count; i++) {
      const s = streams[i]!;
      s.wait(event);
      // Every tenth stream holds its work behind a host step, after its wait: its copy and record
      // then wait in rxcuda's queue, and the later streams' waits for them.
      if (i % 10 === 0) s.hostLaunch(async () => {
        await new Promise((resolve) => setImmediate(resolve));
        steps.push(i);
      });
      s.copy(cells[i]!, cells[i - 1]!);
      event.close();
      event = s.record();
    }
    const last = streams[count - 1]!;
    const out = device.allocHost('u32', 1);
    last.copy(out, cells[count - 1]!);
    await last.synchronized();
    expect(out.data[0]).toBe(42);
    expect(steps).toEqual(Array.from({ length: count / 10 - 1 }, (_, i) => (i + 1) * 10));
    event.close();
    for (const cell of cells) cell.close();
    for (const s of streams) s.close();
    out.close();
  });
});
