// Pinned host memory over the largest buffer Node.js makes: refused before anything is allocated,
// and, where the native allocation is reached anyway, given back when its buffer cannot be made.
import { readFileSync } from 'node:fs';
import { constants } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { CudaError, Device } from '../../src/index.js';
import { describeGpu } from '../support/gpu.js';

/** The process's virtual memory size in bytes (what a leaked allocation of untouched pages grows). */
function virtualBytes(): number {
  return Number(/VmSize:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
}

describe('Device.allocHost', () => {
  it('refuses more bytes than a buffer holds with a RangeError naming `length`', () => {
    const device = Device.host();
    expect(() => device.allocHost('u8', constants.MAX_LENGTH + 16)).toThrow(RangeError);
    expect(() => device.allocHost('u8', constants.MAX_LENGTH + 16)).toThrow(/^Expected `length` to be at most 4294967296 u8 elements/);
    expect(() => device.allocHost('f64', 2 ** 31)).toThrow(/^Expected `length` to be at most 536870912 f64 elements/);
    const last = device.allocHost('u8', 16);
    expect(last.data.length).toBe(16);
    last.close();
  });

  it('keeps virtual memory flat across refused allocations', () => {
    const device = Device.host();
    const before = virtualBytes();
    for (let i = 0; i < 4; i++) expect(() => device.allocHost('u32', 2 ** 31)).toThrow(RangeError);
    expect(virtualBytes() - before).toBeLessThan(2 ** 30);
  });
});

describe('the host backend allocHost', () => {
  it('frees what it allocated when Node.js refuses the buffer', () => {
    const device = Device.host();
    const before = virtualBytes();
    for (let i = 0; i < 4; i++) expect(() => device.engine.backend.allocHost(device.engine.native, constants.MAX_LENGTH + 256)).toThrow();
    expect(virtualBytes() - before).toBeLessThan(2 ** 30);
  });
});

describeGpu('the CUDA backend allocHost', () => {
  it('frees the pinned memory it allocated when Node.js refuses the buffer', async () => {
    const device = Device.get(0);
    const before = virtualBytes();
    for (let i = 0; i < 3; i++) expect(() => device.engine.backend.allocHost(device.engine.native, constants.MAX_LENGTH + 256)).toThrow();
    // The free runs on a worker thread, as every pinned free does.
    const deadline = Date.now() + 10_000;
    while (virtualBytes() - before >= 2 ** 31 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(virtualBytes() - before).toBeLessThan(2 ** 31);
  });
});

describe('Stream.alloc on the host device', () => {
  it('answers more than the machine has with the driver\'s CudaError (out of memory), and the stream goes on', async () => {
    const device = Device.host();
    const stream = device.createStream();
    try {
      let thrown: unknown;
      try {
        stream.alloc('f32', 2 ** 50);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(CudaError);
      expect((thrown as CudaError).code).toBe(2);
      expect((thrown as CudaError).name).toBe('CUDA_ERROR_OUT_OF_MEMORY');
      expect(device.poisoned).toBeUndefined();
      const small = stream.alloc('f32', 4);
      stream.fill(small, 1.5);
      const host = device.allocHost('f32', 4);
      stream.copy(host, small);
      await stream.synchronized();
      expect([...host.data]).toEqual([1.5, 1.5, 1.5, 1.5]);
    } finally {
      stream.close();
    }
  });
});
