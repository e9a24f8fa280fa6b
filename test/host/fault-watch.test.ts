// How a CUDA device's fault reaches work that waits in rxcuda's queues when nothing waits at the
// driver (issue 27's hang, on a GPU): while a lane's queue holds work, its device's open streams
// are queried each second, and the first sticky error breaks every lane. Against stand-in lanes,
// as a GPU's fault cannot be made here; test/behaviour/unsettled-fault.test.ts [cuda] makes one.
import { describe, expect, it } from 'vitest';
import { CudaError } from '../../src/index.js';
import { FAULT_WATCH_MS, Faults, type FaultLane } from '../../src/core/queue/faults.js';

const trap = () => new CudaError(719, 'CUDA_ERROR_LAUNCH_FAILED', 'cuStreamQuery', 'unspecified launch failure');

/** A stand-in lane: queued or not, closed or not, captured or not; its queries answer `answer()`. */
function lane(options: { queued?: boolean; closed?: boolean; capturing?: boolean; answer?: () => boolean }) {
  const seen = { queries: 0, broken: [] as CudaError[] };
  const fake: FaultLane = {
    closed: options.closed ?? false,
    unqueued: !options.queued,
    native: {
      query: () => (seen.queries++, (options.answer ?? (() => true))()),
      capturing: () => options.capturing ?? false,
    },
    break: (error) => void seen.broken.push(error),
  };
  return { fake, seen };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Faults on a CUDA device', () => {
  it('finds a fault nobody waits on at the driver within a watch, and breaks every lane with it', async () => {
    const held = lane({ queued: true });
    const trapped = lane({ answer: () => { throw trap(); } });
    const faults = new Faults(undefined, () => [held.fake, trapped.fake], true);
    faults.queued(held.fake);
    await wait(FAULT_WATCH_MS + 200);
    expect(faults.poisoned?.code).toBe(719);
    expect(held.seen.broken.map((e) => e.code)).toEqual([719]);
    expect(trapped.seen.broken.map((e) => e.code)).toEqual([719]);
  });

  it('stops watching once no queue holds work, and never asks closed or captured streams', async () => {
    const idle = lane({});
    const closed = lane({ queued: true, closed: true });
    const captured = lane({ capturing: true, answer: () => { throw trap(); } });
    const faults = new Faults(undefined, () => [idle.fake, closed.fake, captured.fake], true);
    faults.queued(closed.fake);
    await wait(2 * FAULT_WATCH_MS + 200);
    expect(faults.poisoned).toBeUndefined();
    expect([idle.seen.queries, closed.seen.queries, captured.seen.queries]).toEqual([2, 0, 0]);
    const quiet = lane({});
    const settled = new Faults(undefined, () => [quiet.fake], true);
    settled.queued(quiet.fake); // nothing queued by the time it looks: one look, no query, no more watching
    await wait(2 * FAULT_WATCH_MS + 200);
    expect(quiet.seen.queries).toBe(0);
  });

  it('does not watch a host device, whose faults are its CPU kernels\' own', async () => {
    const held = lane({ queued: true, answer: () => { throw trap(); } });
    const faults = new Faults(undefined, () => [held.fake]);
    faults.queued(held.fake);
    await wait(FAULT_WATCH_MS + 200);
    expect([held.seen.queries, faults.poisoned]).toEqual([0, undefined]);
  });
});
