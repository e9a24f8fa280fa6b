// Steps whose failure cannot be reported the ordinary way (a value String() cannot convert, an
// `error` listener that throws, a thenable whose `then` throws): each is released first, so the
// stream goes on, and the report never throws into rxcuda.
import { beforeAll, expect, it, vi } from 'vitest';
import { STEP_FAILED_WARNING, type Device, type Kernel, type Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { heldStep, streamsPerTest } from '../support/streams.js';
import { testKernels } from '../support/kernels.js';

type Store = Kernel<readonly ['ptr', 'u32']>;

/** Values that `String()` and template literals refuse. */
const unprintable = () => [
  Object.create(null) as object,
  { toString: () => { throw new Error('no toString'); }, [Symbol.toPrimitive]: undefined },
  { [Symbol.toPrimitive]: () => { throw new Error('no primitive'); } },
  Symbol('thrown'),
  (() => { const p = Proxy.revocable({}, {}); p.revoke(); return p.proxy; })(),
];

/**
 * Collects process warnings until `stop()`, where Node would print them (so that the suite's
 * output stays clean): each as the Error that process.emitWarning would make of it.
 */
function warnings() {
  const seen: (Error & { code?: string })[] = [];
  const spy = vi.spyOn(process, 'emitWarning').mockImplementation(((warning: string | Error, options?: { type?: string; code?: string } | string) => {
    const error: Error & { code?: string } = typeof warning === 'string' ? new Error(warning) : warning;
    if (typeof options === 'object') {
      error.name = options.type ?? 'Warning';
      if (options.code !== undefined) error.code = options.code;
    } else if (typeof options === 'string') error.name = options;
    seen.push(error);
  }) as typeof process.emitWarning);
  return { seen, stop: async () => { await new Promise((r) => setTimeout(r, 5)); spy.mockRestore(); } };
}

describeBackends('steps whose failure cannot be reported', (getDevice) => {
  let device: Device;
  let store: Store;
  const one = { grid: 1, block: 1 };
  beforeAll(async () => {
    device = getDevice();
    ({ store } = await testKernels(device));
  });
  const stream = streamsPerTest(() => device);
  /** Enqueues a store of `value` behind what is there, and resolves with what it wrote. */
  const after = async (s: Stream, value: number) => {
    const slot = device.allocHost('u32', 1);
    s.launch(store, one, [slot, value]);
    await s.synchronized();
    return slot.data[0];
  };

  it('releases steps that throw values String() cannot convert, with and without a listener', async () => {
    for (const listening of [false, true]) {
      const s = stream();
      const heard: unknown[] = [];
      if (listening) s.on('error', (error) => void heard.push(error));
      const w = warnings();
      for (const value of unprintable()) {
        s.hostLaunch(() => { throw value; });
        s.hostLaunch(() => Promise.reject(value));
      }
      expect(await after(s, 11)).toBe(11);
      await w.stop();
      expect(heard.length).toBe(listening ? 10 : 0);
      expect(w.seen.filter((x) => x.code === STEP_FAILED_WARNING).length).toBe(listening ? 0 : 10);
    }
  });

  it('releases a step whose error listener throws, and warns that the listener threw, with its error and the step\'s', async () => {
    const s = stream();
    let calls = 0;
    s.on('error', () => {
      calls++;
      throw Object.create(null);
    });
    const w = warnings();
    s.hostLaunch(() => { throw new Error('first'); });
    s.hostLaunch(async () => { throw new Error('second'); });
    expect(await after(s, 12)).toBe(12);
    await w.stop();
    expect(calls).toBe(2);
    expect(w.seen.filter((x) => x.code === STEP_FAILED_WARNING).map((x) => x.message)).toEqual([
      "A hostLaunch step ((anonymous)) failed, and its stream's 'error' listener threw: [object Object] (the step's failure: Error: first)",
      "A hostLaunch step ((anonymous)) failed, and its stream's 'error' listener threw: [object Object] (the step's failure: Error: second)",
    ]);
  });

  it('releases steps that return thenables whose `then` throws, or is a throwing getter', async () => {
    const s = stream();
    const heard: unknown[] = [];
    s.on('error', (error) => void heard.push(error));
    const thrown = new Error('then threw');
    s.hostLaunch(() => ({ then: () => { throw thrown; } }));
    s.hostLaunch(() => ({ get then() { throw thrown; } }));
    let reads = 0;
    // A `then` that is a function when checked and not one when called.
    s.hostLaunch(() => ({ get then() { return reads++ === 0 ? () => {} : 42; } }));
    // A thenable that settles twice, both ways: the first settle counts.
    s.hostLaunch(() => ({ then: (ok: () => void, fail: (e: unknown) => void) => { ok(); fail(thrown); ok(); } }));
    expect(await after(s, 13)).toBe(13);
    expect(heard.length).toBe(3);
    expect(heard.slice(0, 2)).toEqual([thrown, thrown]);
    expect(heard[2]).toBeInstanceOf(TypeError);
  });

  it('reports steps whose name is a throwing getter or a symbol, and releases them', async () => {
    const s = stream();
    const w = warnings();
    const strange = [
      Object.defineProperty(() => { throw new Error('a'); }, 'name', { get() { throw new Error('name'); } }),
      Object.defineProperty(() => { throw new Error('b'); }, 'name', { value: Symbol('name') }),
      Object.defineProperty(() => { throw new Error('c'); }, 'name', { value: 42 }),
    ];
    for (const fn of strange) s.hostLaunch(fn);
    for (const fn of strange) s.onDone(fn);
    expect(await after(s, 14)).toBe(14);
    await w.stop();
    expect(w.seen.filter((x) => x.code === STEP_FAILED_WARNING).length).toBe(6);
  });

  it('reports onDone callbacks that fail unprintably, and calls the later ones', async () => {
    const s = stream();
    const w = warnings();
    let laterRan = 0;
    for (const value of unprintable()) {
      s.onDone(() => { throw value; });
      s.onDone(() => ({ then: () => { throw value; } }));
      s.onDone(() => void laterRan++);
    }
    expect(await after(s, 15)).toBe(15);
    await w.stop();
    expect(laterRan).toBe(5);
    expect(w.seen.filter((x) => x.code === STEP_FAILED_WARNING).length).toBe(10);
  });

  it('survives an idle listener that throws an unprintable value', async () => {
    const s = stream();
    s.on('idle', () => { throw Object.create(null); });
    const w = warnings();
    await s.synchronized();
    s.onDone(() => {});
    expect(await after(s, 16)).toBe(16);
    await w.stop();
    expect(w.seen.some((x) => x.message === 'A completion handler threw: [object Object]')).toBe(true);
  });

  it('releases the queue behind a queued command that fails unprintably, with a listener that throws', async () => {
    const s = stream();
    const held = heldStep(s);
    const slot = s.alloc('u32', 1);
    // The native fill fails when it leaves the queue, with a value nothing can print.
    Object.defineProperty(s.engine.native, 'fill', { value: () => { throw Object.create(null); } });
    s.fill(slot, 3);
    s.on('error', () => { throw Symbol('listener'); });
    const w = warnings();
    (await held)();
    expect(await after(s, 17)).toBe(17);
    await w.stop();
    expect(w.seen.filter((x) => x.code === STEP_FAILED_WARNING).map((x) => x.message)).toEqual([
      "An enqueue step (enqueue) failed, and its stream's 'error' listener threw: Symbol(listener) (the step's failure: [object Object])",
    ]);
  });
});
