// User code that fails when a pipeline is torn down (an iterator's return(), a source's
// unsubscribe) never ends the process: the failure is a process warning RXCUDA_TEARDOWN_FAILED,
// and goes to RxJS's config.onUnhandledError when one is set.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Observable, config, firstValueFrom, lastValueFrom, map, take, toArray } from 'rxjs';
import { TEARDOWN_FAILED_WARNING, lanesFrom, onStreams, upload, type Device, type Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';

/** Process warnings, and anything that would have ended the process, while a test runs. */
const heard = { warnings: [] as (Error & { code?: string })[], fatal: [] as unknown[] };
const onWarning = (warning: Error) => void heard.warnings.push(warning);
const onFatal = (error: unknown) => void heard.fatal.push(error);

beforeEach(() => {
  heard.warnings = [];
  heard.fatal = [];
  process.on('warning', onWarning);
  process.on('unhandledRejection', onFatal);
  process.on('uncaughtException', onFatal);
});
afterEach(() => {
  process.off('warning', onWarning);
  process.off('unhandledRejection', onFatal);
  process.off('uncaughtException', onFatal);
  config.onUnhandledError = null;
});

/** The teardown warnings heard once the event loop has turned a few times (rejections and warnings come later). */
async function teardownWarnings(): Promise<string[]> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
  return heard.warnings.filter((w) => w.code === TEARDOWN_FAILED_WARNING).map((w) => w.message);
}

describeBackends('teardown failures', (getDevice) => {
  const device = (): Device => getDevice();

  it("reports an async generator's finally that throws, when lanesFrom stops early, as a warning", async () => {
    async function* frames() {
      try {
        for (let i = 0; ; i++) yield i;
      } finally {
        throw new Error('camera would not close'); // eslint-disable-line no-unsafe-finally
      }
    }
    const values = await lastValueFrom(lanesFrom(frames(), device(), { lanes: 1 }).pipe(take(3), map((w) => w.value), toArray()));
    expect(values).toEqual([0, 1, 2]);
    expect(await teardownWarnings()).toEqual(["lanesFrom's iterator.return() failed after its pipeline ended: Error: camera would not close"]);
    expect(heard.fatal).toEqual([]);
  });

  it("hands it to RxJS's config.onUnhandledError as well, when one is set", async () => {
    const unhandled: unknown[] = [];
    config.onUnhandledError = (error) => void unhandled.push(error);
    const failure = new Error('rejected');
    const iterator: AsyncIterableIterator<number> = {
      next: async () => ({ done: false, value: 1 }),
      return: () => Promise.reject(failure),
      [Symbol.asyncIterator]: () => iterator,
    };
    await firstValueFrom(lanesFrom(iterator, device(), { lanes: 1 }));
    expect(await teardownWarnings()).toEqual(["lanesFrom's iterator.return() failed after its pipeline ended: Error: rejected"]);
    expect(unhandled).toEqual([failure]);
    expect(heard.fatal).toEqual([]);
  });

  it("reports a synchronous iterator's return() that throws", async () => {
    const iterator: IterableIterator<number> = {
      next: () => ({ done: false, value: 1 }),
      return: () => {
        throw new TypeError('no return');
      },
      [Symbol.iterator]: () => iterator,
    };
    await firstValueFrom(lanesFrom(iterator, device(), { lanes: 1 }));
    expect(await teardownWarnings()).toEqual(["lanesFrom's iterator.return() failed after its pipeline ended: TypeError: no return"]);
    expect(heard.fatal).toEqual([]);
  });

  it('does not call return() after next() failed, as for await does not: the subscriber hears the failure alone', async () => {
    const calls: string[] = [];
    const iterator: AsyncIterableIterator<number> = {
      next: () => (calls.push('next'), Promise.reject(new Error('no frame'))),
      return: () => (calls.push('return'), Promise.reject(new Error('no close'))),
      [Symbol.asyncIterator]: () => iterator,
    };
    const error = await lastValueFrom(lanesFrom(iterator, device(), { lanes: 1 })).catch((e: unknown) => e);
    expect(String(error)).toBe('Error: no frame');
    expect(await teardownWarnings()).toEqual([]);
    expect(calls).toEqual(['next']);
    expect(heard.fatal).toEqual([]);
  });

  it("does not call return() once the iterator is done, and calls it once when left early", async () => {
    const calls: string[] = [];
    const counting = (n: number): IterableIterator<number> => {
      let i = 0;
      const it: IterableIterator<number> = {
        next: () => (i < n ? { done: false, value: i++ } : { done: true, value: undefined }),
        return: () => (calls.push(`return ${n}`), { done: true, value: undefined }),
        [Symbol.iterator]: () => it,
      };
      return it;
    };
    expect(await lastValueFrom(lanesFrom(counting(3), device(), { lanes: 1 }).pipe(toArray()))).toHaveLength(3);
    expect(await lastValueFrom(lanesFrom(counting(9), device(), { lanes: 1 }).pipe(take(2), toArray()))).toHaveLength(2);
    expect(calls).toEqual(['return 9']);
  });

  it("reports an onStreams source's teardown that throws, and closes the pool it made all the same", async () => {
    const made: Stream[] = [];
    const createStream = device().createStream.bind(device());
    const spy = vi.spyOn(device(), 'createStream').mockImplementation((options) => {
      const stream = createStream(options);
      made.push(stream);
      return stream;
    });
    const source = new Observable<Float32Array>((subscriber) => {
      subscriber.next(new Float32Array(4));
      subscriber.next(new Float32Array(4));
      return () => {
        throw new Error('source would not stop');
      };
    });
    try {
      const first = await firstValueFrom(source.pipe(onStreams(device(), { lanes: 2 }), upload((x) => x)));
      expect(first.index).toBe(0);
    } finally {
      spy.mockRestore();
    }
    const warnings = await teardownWarnings();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^onStreams's unsubscribe from its source failed after its pipeline ended: UnsubscriptionError: /);
    expect(warnings[0]).toContain('source would not stop');
    expect(made.map((s) => s.closed)).toEqual([true, true]); // the pool's lanes
    expect(heard.fatal).toEqual([]);
  });
});
