// Library calls keep stream order with kernels, copies, host steps and cross-stream waits, on
// many streams at once: each result below exists only if every step before it ran first.
import { expect, it } from 'vitest';
import { Builtins, type Event } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { streamsPerTest } from '../support/streams.js';

const N = 16; // every matrix is N × N; products of N ones sum to N exactly, in any precision
const STREAMS = 8;

describeBackends('library calls in stream order', (getDevice) => {
  const stream = streamsPerTest(getDevice);

  it(`keep their places among kernels, host steps and waits on ${STREAMS} streams`, async () => {
    const device = getDevice();
    const builtins = await Builtins.for(device);
    const streams = Array.from({ length: STREAMS }, () => stream());
    const seen: { i: number; dc: number }[] = [];
    const ones = streams[0]!.alloc('f32', N * N);
    builtins.fill(streams[0]!, ones, 1);
    const ready = streams[0]!.record();
    const lanes = streams.map((s, i) => {
      s.wait(ready);
      const a = s.alloc('f32', N * N), c = s.alloc('f32', N * N), spectrum = s.alloc('f32', N * N);
      const fromStep = device.allocHost('f32', N * N), d = s.alloc('f32', N * N), e = s.alloc('f32', N * N), g = s.alloc('f32', N * N);
      const dc = device.allocHost('f32', 2);
      builtins.fill(s, a, i + 1); // a kernel
      device.blas.gemm(s, a, ones, c, { m: N, n: N, k: N }); // c = N(i + 1)
      device.fft.c2c(s, c, spectrum, { shape: (N * N) / 2 }); // constant (v + iv): all in bin 0
      s.copy(dc, spectrum.subarray(0, 2));
      s.hostLaunch(() => {
        seen.push({ i, dc: dc.data[0]! });
        fromStep.data.fill(i + 2); // what the work after the step reads
      });
      s.copy(d, fromStep);
      device.blas.gemm(s, a, d, e, { m: N, n: N, k: N }); // e = N(i + 1)(i + 2)
      return { s, e, g, done: s.record() as Event };
    });
    // Each stream's last product reads its neighbour's e, behind that stream's event.
    for (const [j, { s, g }] of lanes.entries()) {
      const i = (j + STREAMS - 1) % STREAMS;
      s.wait(lanes[i]!.done);
      device.blas.gemm(s, lanes[i]!.e, ones, g, { m: N, n: N, k: N }); // g = N²(i + 1)(i + 2)
    }
    const results = await Promise.all(
      lanes.map(async ({ s, e, g }) => {
        const out = device.allocHost('f32', 2);
        s.copy(out.subarray(0, 1), e.subarray(0, 1));
        s.copy(out.subarray(1, 2), g.subarray(0, 1));
        await s.synchronized();
        return [...out.data];
      }),
    );
    // The step saw its stream's transform: bin 0 holds the sum of the N² / 2 points (to rounding).
    seen.sort((x, y) => x.i - y.i);
    expect(seen.map(({ i }) => i)).toEqual(streams.map((_, i) => i));
    for (const { i, dc } of seen) expect(Math.abs(dc - ((N * N) / 2) * N * (i + 1))).toBeLessThanOrEqual(1e-5 * dc);
    expect(results).toEqual(
      lanes.map((_, j) => {
        const i = (j + STREAMS - 1) % STREAMS;
        return [N * (j + 1) * (j + 2), N * N * (i + 1) * (i + 2)];
      }),
    );
  });
});
