// Host streams cost no OS thread each: a few threads per environment run any number of streams,
// each stream's commands in order; waits for events hold no thread, and host functions that block
// do not starve the other streams. Past what the host device allows, creating a stream throws,
// and a LanePool that gets only some of its streams closes them.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Device, type Event, type Stream } from '../../src/index.js';
import { helpers } from '../support/helpers.js';

function threads(): number {
  return Number(/Threads:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
}

describe('host streams', () => {
  it('runs 10^4 streams, each waiting for the one before, with a few threads', async () => {
    const device = Device.host();
    const before = threads();
    const counter = device.allocHost('u32', 1);
    const order: number[] = [];
    const streams: Stream[] = [];
    let previous: Event | undefined;
    for (let i = 0; i < 10_000; i++) {
      const stream = device.createStream();
      // Parked until the previous stream has counted: a wait that held a thread would need 10^4.
      if (previous) stream.wait(previous);
      stream.launchHostFunction(helpers.countCalls, counter);
      stream.onDone(() => order.push(i));
      previous = stream.record();
      streams.push(stream);
    }
    const during = threads();
    await Promise.all(streams.map((s) => s.synchronized()));
    expect(counter.data[0]).toBe(10_000);
    expect(order).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
    expect(during - before).toBeLessThan(16);
    expect(threads() - before).toBeLessThan(16);
    for (const s of streams) s.close();
  });

  it('keeps other streams running while more host functions block than the pool has threads', async () => {
    const device = Device.host();
    const before = threads();
    const flag = device.allocHost('u32', 1);
    const blocked = Array.from({ length: 24 }, () => device.createStream());
    for (const s of blocked) s.launchHostFunction(helpers.waitForWord, flag);
    const free = device.createStream();
    const counter = device.allocHost('u32', 1);
    for (let i = 0; i < 100; i++) free.launchHostFunction(helpers.countCalls, counter);
    await free.synchronized();
    expect(counter.data[0]).toBe(100);
    expect(blocked.every((s) => !s.query())).toBe(true);
    // A thread per blocked host function while they block (the pool's idle ones, at most 8, among them).
    expect(threads() - before).toBeGreaterThanOrEqual(24 - 8);
    flag.data[0] = 1;
    await Promise.all(blocked.map((s) => s.synchronized()));
    // The threads that stood in for them end once they are back.
    for (const deadline = Date.now() + 5000; threads() - before >= 16 && Date.now() < deadline; )
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(threads() - before).toBeLessThan(16);
    for (const s of [...blocked, free]) s.close();
  });

  it('does not deadlock when streams wait for events recorded behind blocked host functions', async () => {
    const device = Device.host();
    const flag = device.allocHost('u32', 1);
    const recorders = Array.from({ length: 24 }, () => device.createStream());
    const waiters = Array.from({ length: 24 }, () => device.createStream());
    const counter = device.allocHost('u32', 1);
    recorders.forEach((r, i) => {
      r.launchHostFunction(helpers.waitForWord, flag);
      const event = r.record();
      waiters[i]!.wait(event);
      waiters[i]!.launchHostFunction(helpers.countCalls, counter);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(counter.data[0]).toBe(0);
    flag.data[0] = 1;
    await Promise.all(waiters.map((s) => s.synchronized()));
    expect(counter.data[0]).toBe(24);
    for (const s of [...recorders, ...waiters]) s.close();
  });
});

describe('host streams past the limit', () => {
  // In a child process: the streams made before the limit stay open there.
  const entry = new URL('../../dist/src/index.js', import.meta.url).href;
  const child = (body: string) =>
    spawnSync(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(entry)}); ${body}`], {
      encoding: 'utf8',
      timeout: 120_000,
    });

  it('throws a CudaError instead of aborting, and frees a place when one is closed', () => {
    const run = child(`
      const device = m.Device.host();
      const streams = [];
      let error;
      try { for (;;) streams.push(device.createStream()); } catch (e) { error = e; }
      streams.pop().close();
      const again = device.createStream();
      let ran = false;
      again.hostLaunch(() => { ran = true; });
      await again.synchronized();
      console.log(JSON.stringify({ open: streams.length + 1, isCudaError: error instanceof m.CudaError, name: error.name, call: error.call, message: error.message, ran }));
    `);
    expect(run.signal, run.stderr).toBeNull();
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      open: 65536, isCudaError: true, name: 'CUDA_ERROR_OUT_OF_MEMORY', call: 'cuStreamCreate',
      message: 'the host device has 65536 open streams, its most; close some first', ran: true,
    });
  });

  it('closes the lanes a LanePool made when the device refuses the next stream', () => {
    const run = child(`
      const device = m.Device.host();
      const streams = [];
      try { for (;;) streams.push(device.createStream()); } catch {}
      for (const s of streams.splice(-2)) s.close(); // room for 2 of the pool's 4 lanes
      let error;
      try { new m.LanePool(device, { lanes: 4 }); } catch (e) { error = e; }
      const made = [device.createStream(), device.createStream()]; // the 2 lanes' places are free again
      console.log(JSON.stringify({ name: error?.name, open: device.engine.liveLanes().length, made: made.length }));
    `);
    expect(run.signal, run.stderr).toBeNull();
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ name: 'CUDA_ERROR_OUT_OF_MEMORY', open: 65536, made: 2 });
  });
});
