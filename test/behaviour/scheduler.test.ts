// The scheduler: host steps hold their stream in rxcuda's own queue, never on the device, so any
// number of streams may hold any number of steps; cross-stream waits, completion points and
// device-wide calls keep working while they do.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { lastValueFrom, range, tap, toArray } from 'rxjs';
import { CudaError, completed, launch, onStreams, type Device, type Module, type Stream } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';
import { collectUntil, gc } from '../support/gc.js';

const fixture = fileURLToPath(new URL('./fixtures/many-streams.mjs', import.meta.url));
const one = { grid: 1, block: 1 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function runFixture(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fixture, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A step that holds `stream` until the returned function is called. */
function holdStep(stream: Stream): () => void {
  let open!: () => void;
  const released = new Promise<void>((resolve) => (open = resolve));
  stream.hostLaunch(() => released);
  return open;
}

describeBackends('the scheduler', (getDevice, backend) => {
  it('runs 1000 streams × 100 held steps with a kernel between steps, each once and in order, and the process exits by itself', async () => {
    const result = await runFixture(backend, '1000', '100');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const seen = JSON.parse(result.stdout.trim().split('\n').pop()!);
    console.log(`1000 streams × 100 steps on ${backend}: enqueued in ${seen.enqueueMs} ms, all ran in ${seen.ms} ms`);
    expect(seen).toMatchObject({ ran: 100_000, outOfOrder: 0, wrongWord: 0, errors: 0, code: 0 });
  }, 180_000);

  it('takes 10^5 held steps on one stream without awaiting, and runs them in order', async () => {
    const device = getDevice();
    const s = device.createStream();
    const hold = holdStep(s);
    gc();
    const before = process.memoryUsage().rss;
    let next = 0;
    let outOfOrder = 0;
    for (let i = 0; i < 100_000; i++)
      s.hostLaunch(() => {
        if (i !== next++) outOfOrder++;
      });
    const queued = process.memoryUsage().rss;
    hold();
    await s.synchronized();
    gc();
    const after = process.memoryUsage().rss;
    console.log(`10^5 queued steps on ${backend}: RSS +${((queued - before) / 2 ** 20).toFixed(1)} MiB queued, +${((after - before) / 2 ** 20).toFixed(1)} MiB after they ran`);
    expect([next, outOfOrder]).toEqual([100_000, 0]);
    s.close();
  }, 120_000);

  it('orders a consumer after a producer whose record waits behind an async step', async () => {
    const device = getDevice();
    const { store, copy } = await testKernels(device);
    const producer = device.createStream({ nonBlocking: true });
    const consumer = device.createStream({ nonBlocking: true });
    const made = producer.alloc('u32', 1);
    const seen = device.allocHost('u32', 1);
    producer.launch(store, one, [made, 1]);
    producer.hostLaunch(() => sleep(50));
    producer.launch(store, one, [made, 42]); // after the step
    const ready = producer.record({ timing: true });
    const start = producer.record({ timing: true });
    expect(ready.query()).toBe(false); // its record waits in the producer's queue
    expect(() => ready.elapsedSince(start)).toThrow(expect.objectContaining({ name: 'CUDA_ERROR_NOT_READY' }));
    expect(() => ready.elapsedSince(start)).toThrow(CudaError);
    consumer.wait(ready);
    consumer.launch(copy, one, [made, consumer.alloc('u32', 1)]); // queued behind the wait
    const out = consumer.alloc('u32', 1);
    consumer.launch(copy, one, [made, out]);
    consumer.copy(seen, out);
    expect(consumer.query()).toBe(false);
    await consumer.synchronized();
    expect(seen.data[0]).toBe(42);
    await ready.completed();
    expect(ready.query()).toBe(true);
    expect(start.elapsedSince(ready)).toBeGreaterThanOrEqual(0);
    producer.close();
    consumer.close();
  });

  it('keeps the latest record a wait was made for, though the event is recorded again before the wait leaves its queue', async () => {
    const device = getDevice();
    const { store, copy } = await testKernels(device);
    const a = device.createStream({ nonBlocking: true });
    const b = device.createStream({ nonBlocking: true });
    const value = a.alloc('u32', 1);
    const seen = device.allocHost('u32', 1);
    const event = device.createEvent();
    a.launch(store, one, [value, 1]);
    a.record(event);
    const releaseB = holdStep(b);
    b.wait(event); // queued in b: it must wait for the first record, not a later one
    const out = b.alloc('u32', 1);
    b.launch(copy, one, [value, out]);
    b.copy(seen, out);
    await a.synchronized();
    const releaseA = holdStep(a);
    a.record(event); // a second record, behind a's unsettled step
    releaseB();
    await b.synchronized(); // would never settle if b waited for the second record
    expect(seen.data[0]).toBe(1);
    releaseA();
    await a.synchronized();
    event.close();
    a.close();
    b.close();
  });

  it('answers query(), flushed() and idle with queued work counted', async () => {
    const device = getDevice();
    const { store } = await testKernels(device);
    const s = device.createStream();
    const word = device.allocHost('u32', 1);
    const release = holdStep(s);
    s.launch(store, one, [word, 9]);
    let flushed = false;
    let idle = 0;
    s.on('idle', () => idle++);
    void s.flushed().then(() => (flushed = true));
    await sleep(20);
    expect([s.query(), flushed, word.data[0], idle]).toEqual([false, false, 0, 0]);
    const done = s.synchronized();
    release();
    await done;
    expect([flushed, word.data[0], idle]).toEqual([true, 9, 1]);
    expect(s.query()).toBe(true);
    s.close();
  });

  it('counts launches that went straight to the driver: idle waits for a kernel enqueued after a completion point', async () => {
    const device = getDevice();
    const { spin } = await testKernels(device);
    const s = device.createStream();
    const idleAt: number[] = [];
    const start = performance.now();
    s.on('idle', () => idleAt.push(performance.now() - start));
    const first = s.synchronized();
    s.launch(spin, one, [100_000_000n]); // direct: after the completion point
    await first;
    await s.synchronized();
    expect(idleAt).toHaveLength(1);
    expect(idleAt[0]).toBeGreaterThanOrEqual(90);
    s.close();
  });

  it('makes device-wide calls while 100 streams are held, none blocking the main thread past 50 ms', async () => {
    const device = getDevice();
    const { store } = await testKernels(device);
    const streams = Array.from({ length: 100 }, () => device.createStream({ nonBlocking: true }));
    const releases = streams.map((s) => holdStep(s));
    const words = streams.map((s) => {
      const word = device.allocHost('u32', 1);
      s.launch(store, one, [word, 7]);
      return word;
    });
    const took: Record<string, number> = {};
    const time = <T>(name: string, fn: () => T): T => {
      const start = performance.now();
      const result = fn();
      took[name] = performance.now() - start;
      return result;
    };
    const source = `extern "C" __global__ void nothing${backend}() {}\n// ${Date.now()}`;
    const compiling = time('compile', () => device.compile(source, { cache: false }));
    const loads: Promise<Module>[] = [];
    if (backend === 'cuda') {
      const ptx = `.version 8.0\n.target ${device.arch}\n.address_size 64\n`;
      loads.push(time('loadModule', () => device.loadModule(ptx)));
    }
    const big = time('allocHost 8 MiB', () => device.allocHost('u8', 8 << 20));
    const small = time('allocHost 64 B', () => device.allocHost('u8', 64));
    streams[0]!.copy(big.subarray(0, 64), small);
    time('free 8 MiB', () => big.close());
    time('free 64 B', () => small.close());
    const module = await compiling;
    time('module close', () => module.close());
    for (const loaded of await Promise.all(loads)) time('loaded module close', () => loaded.close());
    expect(words.map((w) => w.data[0])).toEqual(words.map(() => 0)); // all still held
    for (const [name, ms] of Object.entries(took)) expect({ name, under50ms: ms < 50 }).toEqual({ name, under50ms: true });
    releases.forEach((release) => release());
    await Promise.all(streams.map((s) => s.synchronized()));
    expect(words.map((w) => w.data[0])).toEqual(words.map(() => 7));
    streams.forEach((s) => s.close());
  });

  it('resolves Event.completed() of two streams each at its own time', async () => {
    const device = getDevice();
    const { latch, spin } = await testKernels(device);
    const [slow, fast] = [device.createStream({ nonBlocking: true }), device.createStream({ nonBlocking: true })];
    // The slow stream's kernel runs until the test writes its flag: the order is the test's own,
    // not how long kernels take on a loaded machine.
    const flag = device.allocHost('u32', 1);
    const out = device.allocHost('u32', 1);
    slow.launch(latch, one, [flag, out, 7, 30_000_000_000n]);
    fast.launch(spin, one, [1_000_000n]);
    const [slowDone, fastDone] = [slow.record(), fast.record()];
    const order: string[] = [];
    // The slow one is asked first: the fast one must not wait behind it.
    const slowSeen = slowDone.completed().then(() => order.push('slow'));
    const fastSeen = fastDone.completed().then(() => order.push('fast'));
    await fastSeen;
    expect(order).toEqual(['fast']); // while the slow one is still held
    flag.data[0] = 1;
    await slowSeen;
    expect([order, out.data[0]]).toEqual([['fast', 'slow'], 7]);
    slow.close();
    fast.close();
  });

  it('starts a pipeline value as soon as an earlier one finishes, keeping one lane busy', async () => {
    const device = getDevice();
    const { spin } = await testKernels(device);
    const started: number[] = [];
    const finished: number[] = [];
    const t0 = performance.now();
    await lastValueFrom(
      range(0, 4).pipe(
        onStreams(device, { lanes: 1, inFlight: 2 }),
        tap((w) => (started[w.index] = performance.now() - t0)),
        launch(spin, () => ({ config: one, args: [100_000_000n] })),
        completed(),
        tap((w) => (finished[w.index] = performance.now() - t0)),
        toArray(),
      ),
    );
    expect(started[1]!).toBeLessThan(finished[0]!); // in flight together
    // Value 2 takes value 0's place when value 0 is done, not when value 1 is.
    expect(started[2]!).toBeLessThan(finished[1]! - 50);
    expect(started[3]!).toBeLessThan(finished[2]! - 50);
  });

  it('lets a stream nobody closed be collected, and frees behind the streams still open', async () => {
    const device = getDevice();
    let collected = false;
    const registry = new FinalizationRegistry(() => (collected = true));
    (() => {
      const forgotten = device.createStream();
      forgotten.fill(forgotten.alloc('u32', 4), 1);
      registry.register(forgotten, 'stream');
    })();
    await new Promise((r) => setTimeout(r, 20));
    expect(await collectUntil(() => collected)).toBe(true);
    const s = device.createStream();
    const big = device.allocHost('u8', 2 << 20); // over the cached size: freed behind the device's open streams
    s.copy(big.subarray(0, 16), big.subarray(16, 32));
    big.close();
    await s.synchronized();
    s.close();
  });

  it('calls back a notification made after the stream was closed, behind its last work', async () => {
    const device = getDevice();
    const { store } = await testKernels(device);
    const s = device.createStream();
    const word = device.allocHost('u32', 1);
    const release = holdStep(s);
    s.launch(store, one, [word, 5]);
    s.close();
    const seen = new Promise<[number, number | undefined]>((resolve) => s.device.engine.afterWork(s.engine, (status) => resolve([status, word.data[0]])));
    release();
    expect(await seen).toEqual([0, 5]);
  });
});

describeBackends('a device-wide call on the host and CUDA devices', (getDevice: () => Device) => {
  it('loads no module on the host device, and says why', async () => {
    const device = getDevice();
    if (device.kind === 'host') expect(() => device.loadModule('x')).toThrow(/host device/);
    else await expect(device.loadModule('not ptx')).rejects.toThrow(CudaError);
  });
});
