// A host step that waits for a completion that can only come once it has settled (its own
// stream's synchronized(), flushed() or onDone(), an event recorded behind it) gets a
// DeadlockError at once, naming the wait, instead of hanging; waits that do end are not refused.
import { firstValueFrom, from, toArray } from 'rxjs';
import { expect, it } from 'vitest';
import { currentLaunch, DeadlockError, host, onStreams, PipelineError, type Device, type Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { streamsPerTest } from '../support/streams.js';

/** The first failure the stream reports, and the milliseconds from `started()` to it. */
function firstError(s: Stream): { started: () => void; error: Promise<{ error: unknown; ms: number }> } {
  let start = 0;
  return {
    started: () => void (start = performance.now()),
    error: new Promise((resolve) => s.once('error', (error) => resolve({ error, ms: performance.now() - start }))),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeBackends('a host step that waits for its own stream', (getDevice, backend) => {
  const stream = streamsPerTest(getDevice);

  /** Runs `step` as a host step of a new stream and returns the failure it reports. */
  async function refusal(step: (s: Stream, started: () => void) => () => unknown): Promise<{ error: unknown; ms: number }> {
    const s = stream();
    const { started, error } = firstError(s);
    s.hostLaunch(step(s, started));
    const failure = await error;
    await s.synchronized(); // the stream went on
    return failure;
  }

  /** What each step does, made for its stream (`started()` when it starts to wait). */
  const cases: [string, string, (s: Stream, started: () => void) => () => unknown][] = [
    ['awaits synchronized()', 'stream.synchronized()', (s, started) => async () => {
      started();
      await s.synchronized();
    }],
    ['awaits flushed()', 'stream.flushed()', (s, started) => async () => {
      started();
      await s.flushed();
    }],
    ['awaits its onDone()', 'stream.onDone()', (s, started) => async () => {
      started();
      await new Promise((resolve) => s.onDone(resolve));
    }],
    ['returns synchronized() from a plain function', 'stream.synchronized()', (s, started) => () => {
      started();
      return s.synchronized();
    }],
    ['awaits synchronized() after an await of its own', 'stream.synchronized()', (s, started) => async () => {
      await sleep(1);
      started();
      await s.synchronized();
    }],
    ['awaits a helper that awaits flushed() after a timer', 'stream.flushed()', (s, started) => async () => {
      const helper = async () => {
        await sleep(1);
        started();
        await s.flushed();
      };
      await helper();
    }],
    ['awaits onDone() after an await of its own', 'stream.onDone()', (s, started) => async () => {
      await sleep(1);
      started();
      await new Promise((resolve) => s.onDone(resolve));
    }],
  ];

  for (const [what, wait, step] of cases) {
    it(`gets a DeadlockError within 100 ms when it ${what}`, async () => {
      const { error, ms } = await refusal(step);
      expect(error).toBeInstanceOf(DeadlockError);
      expect(error).toMatchObject({ wait, step: '(anonymous)', code: undefined });
      expect((error as Error).message).toMatch(new RegExp(`^${wait.replace(/[.()]/g, '\\$&')} in the host step \\(anonymous\\) would never end`));
      expect(ms).toBeLessThan(100);
    });
  }

  it('gets a DeadlockError when it awaits an event recorded behind it', async () => {
    const s = stream();
    const device: Device = getDevice();
    const event = device.createEvent();
    const { started, error } = firstError(s);
    s.hostLaunch(async function awaitsTheEvent() {
      started();
      await event.completed();
    });
    s.record(event);
    const { error: failure, ms } = await error;
    expect(failure).toMatchObject({ name: 'DeadlockError', wait: 'event.completed() (of an event recorded behind it)', step: 'awaitsTheEvent' });
    expect(ms).toBeLessThan(100);
    await event.completed(); // from outside the step, it completes
    event.close();
  });

  it('reaches a pipeline as the cause of its PipelineError, from a host() step', async () => {
    const device = getDevice();
    const run = firstValueFrom(from([1, 2]).pipe(onStreams(device), host(async (w) => void (await w.stream.synchronized())), toArray()));
    await expect(run).rejects.toBeInstanceOf(PipelineError);
    await expect(run).rejects.toMatchObject({ cause: { name: 'DeadlockError', wait: 'stream.synchronized()' } });
  });

  it.skipIf(backend === 'cuda')('gets a DeadlockError in a CPU kernel that awaits its launch stream', async () => {
    const device = getDevice();
    const module = await device.compile('extern "C" __global__ void waits() {}', { name: 'waits.cu' });
    const waits = module.kernel('waits', [], { cpu: async () => void (await currentLaunch().stream.synchronized()) });
    const s = stream();
    const { error } = firstError(s);
    s.launch(waits, { grid: 1, block: 1 }, []);
    expect((await error).error).toMatchObject({ name: 'DeadlockError', wait: 'stream.synchronized()', step: 'waits' });
  });
});

describeBackends('waits that end are not refused', (getDevice) => {
  const stream = streamsPerTest(getDevice);

  it('lets a plain step ask for its own stream: the wait ends once the step has returned', async () => {
    const s = stream();
    const order: string[] = [];
    let waited: Promise<void> | undefined;
    let called: Promise<void> | undefined;
    s.hostLaunch(() => {
      waited = s.synchronized().then(() => void order.push('synchronized'));
      called = new Promise((resolve) => s.onDone(() => resolve(void order.push('onDone'))));
      order.push('step');
    });
    await s.synchronized();
    await Promise.all([waited, called]);
    // Both end after the step; between the two, each comes in its own notification.
    expect(order[0]).toBe('step');
    expect([...order].sort()).toEqual(['onDone', 'step', 'synchronized']);
  });

  it('lets an async step wait for another stream, and for an event recorded before it', async () => {
    const [s, other] = [stream(), stream()];
    const before = s.record();
    let done = false;
    s.hostLaunch(async () => {
      await other.synchronized();
      await before.completed();
      done = true;
    });
    await s.synchronized();
    expect(done).toBe(true);
    before.close();
  });

  it('lets the code outside a pending async step wait for its stream', async () => {
    const s = stream();
    let release: (() => void) | undefined;
    const order: string[] = [];
    s.hostLaunch(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      order.push('step');
    });
    while (!release) await sleep(1); // the step has started, and waits
    const waited = Promise.all([s.synchronized(), s.flushed(), new Promise((resolve) => s.onDone(resolve))]).then(() => void order.push('waits'));
    await sleep(5);
    release();
    await waited;
    expect(order).toEqual(['step', 'waits']);
  });
});
