// Steps that never settle can be given up: `timeout` on hostLaunch and on the host operator.
import { afterEach, beforeAll, expect, it } from 'vitest';
import { firstValueFrom, range, toArray } from 'rxjs';
import {
  HostStepTimeoutError, PipelineError, RxcudaError, host, onStreams,
  type Device, type HostStepContext, type Kernel, type Stream,
} from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { lanePools, streamsPerTest } from '../support/streams.js';
import { testKernels } from '../support/kernels.js';

type Store = Kernel<readonly ['ptr', 'u32']>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const never = () => new Promise<void>(() => {});

describeBackends('Stream.hostLaunch with a timeout', (getDevice) => {
  let device: Device;
  let store: Store;
  const one = { grid: 1, block: 1 };
  beforeAll(async () => {
    device = getDevice();
    ({ store } = await testKernels(device));
  });
  const stream = streamsPerTest(() => device);
  const heard = (s: Stream) => {
    const errors: [unknown, HostStepContext][] = [];
    s.on('error', (error, context) => void errors.push([error, context]));
    return errors;
  };

  it('gives up a step that never settles, reports it, and lets the stream go on', async () => {
    const s = stream();
    const errors = heard(s);
    const slot = device.allocHost('u32', 1);
    const start = performance.now();
    s.hostLaunch(function waitsForever() { return never(); }, { timeout: 50 });
    s.launch(store, one, [slot, 21]);
    await s.synchronized();
    const waited = performance.now() - start;
    expect(slot.data[0]).toBe(21);
    expect(waited).toBeGreaterThanOrEqual(45);
    expect(errors.length).toBe(1);
    const [error, context] = errors[0]!;
    expect(context).toEqual({ kind: 'hostLaunch', name: 'waitsForever' });
    expect(error).toBeInstanceOf(HostStepTimeoutError);
    expect(error).toBeInstanceOf(RxcudaError);
    const timeout = error as HostStepTimeoutError;
    expect([timeout.name, timeout.code, timeout.step, timeout.timeout]).toEqual(['HostStepTimeoutError', undefined, 'waitsForever', 50]);
    expect(timeout.message).toBe('The host step waitsForever did not settle within 50 ms: it was given up, and its stream went on');
  });

  it('ignores a settle that comes after the timeout, either way', async () => {
    const s = stream();
    const errors = heard(s);
    let resolveLate!: () => void, rejectLate!: (e: unknown) => void;
    s.hostLaunch(() => new Promise<void>((r) => (resolveLate = r)), { timeout: 20 });
    s.hostLaunch(() => new Promise<void>((_, r) => (rejectLate = r)), { timeout: 20 });
    await s.synchronized();
    resolveLate();
    rejectLate(new Error('too late'));
    await sleep(20);
    expect(errors.map(([e]) => (e as Error).name)).toEqual(['HostStepTimeoutError', 'HostStepTimeoutError']);
  });

  it('counts from the start of the step, not from its enqueue, and stays quiet for a step in time', async () => {
    const s = stream();
    const errors = heard(s);
    s.hostLaunch(() => sleep(80));
    s.hostLaunch(() => sleep(5), { timeout: 60 });
    await s.synchronized();
    await sleep(80); // a timer left running would fire by now
    expect(errors).toEqual([]);
  });

  it('refuses bad timeouts with nothing enqueued', () => {
    const s = stream();
    const before = s.engine.given;
    const bad: [unknown, typeof TypeError | typeof RangeError][] = [
      [0, RangeError], [-1, RangeError], [2 ** 31, RangeError], [Infinity, TypeError], [NaN, TypeError],
      [1.5, TypeError], ['10', TypeError], [10n, TypeError], [null, TypeError], [{ valueOf: () => 10 }, TypeError],
    ];
    for (const [timeout, Class] of bad) {
      expect(() => s.hostLaunch(() => {}, { timeout } as never)).toThrow(Class);
      expect(() => s.hostLaunch(() => {}, { timeout } as never)).toThrow(/^Expected `timeout` to be /);
    }
    expect(s.engine.given).toBe(before);
  });
});

describeBackends('host() with a timeout', (getDevice) => {
  let device: Device;
  beforeAll(() => void (device = getDevice()));
  const newPool = lanePools(() => device, afterEach);

  it('errors the pipeline with a PipelineError whose cause is a HostStepTimeoutError', async () => {
    const pool = newPool({ lanes: 1 });
    const ran: number[] = [];
    const laneErrors: unknown[] = [];
    pool.lanes[0]!.stream.on('error', (e) => void laneErrors.push(e));
    const error = await firstValueFrom(
      range(0, 3).pipe(
        onStreams(pool),
        host((w) => {
          ran.push(w.index);
          return w.index === 1 ? never() : undefined;
        }, { timeout: 30 }),
        toArray(),
      ),
    ).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(PipelineError);
    expect((error as PipelineError).operator).toBe('host');
    expect((error as PipelineError).index).toBe(1);
    expect((error as PipelineError).cause).toBeInstanceOf(HostStepTimeoutError);
    expect(laneErrors).toEqual([]); // the subscriber had it, not the lane's stream
    // The lane went on: the next value's step ran.
    await pool.lanes[0]!.stream.synchronized();
    expect(ran).toEqual([0, 1, 2]);
  });

  it('refuses a bad timeout or a non-function at once', () => {
    expect(() => host(() => {}, { timeout: -5 })).toThrow(/^Expected `timeout` to be 1\.\.2147483647 milliseconds, got -5$/);
    expect(() => host(() => {}, 5 as never)).toThrow(/^Expected `options` to be an options object, got 5$/);
    expect(() => host(undefined as never)).toThrow(/^Expected `fn` to be a function, got undefined$/);
  });
});
