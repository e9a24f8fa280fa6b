// bench/pipeline --devices N: the same pipeline on N devices against 1, in the same run, rounds
// alternating, for two cases:
// - kernel-bound: 1 MiB pinned frames through a kernel that computes long on each element (its
//   copies are a small part of a value's time); N devices should give close to N times the frames.
// - copy-bound: 8 MiB pinned frames through a kernel that touches each element once (the copies
//   are the value's time); what N devices give depends on the host's links to them.
// Both take the fastest road (pinned frames in, results lent out), lanesPerDevice lanes on each
// device and twice that many values in flight per device. Where there are fewer GPUs than N, the
// comparison runs on the GPUs there are, and says so; without a GPU, on N host devices (the paths
// run; their timing means nothing).
import { lastValueFrom, count, tap } from 'rxjs';
import { Device, LanePool, download, framesFrom, launch, upload } from 'rxcuda';
import { report } from './support.mjs';

const SOURCE = `
extern "C" __global__ void burn(unsigned* x, unsigned n, unsigned rounds) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned v = x[i];
    for (unsigned r = 0; r < rounds; r++) { v ^= v << 13; v ^= v >> 17; v ^= v << 5; }
    x[i] = v;
  }
}
extern "C" __global__ void touch(unsigned* x, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] += 1;
}`;

/** Runs the comparison for `wanted` devices; returns the report's rows. */
export async function compareDevices(wanted, { lanesPerDevice = 3, rounds = 4096 } = {}) {
  const gpus = Device.count();
  const all = gpus > 0 ? Device.all() : Device.hosts(wanted);
  const devices = all.slice(0, wanted);
  const module = await devices[0].compile(SOURCE, { name: 'bench-pipeline-devices.cu' });
  const burn = module.kernel('burn', ['ptr<u32>', 'u32', 'u32'], {
    cpu: (_, [x, n]) => void x.fill(1, 0, Math.min(n, 64)), // the host devices stand in only
  });
  const touch = module.kernel('touch', ['ptr<u32>', 'u32'], { cpu: (_, [x]) => void (x[0] += 1) });
  const cases = {
    'kernel-bound': { bytes: 2 ** 20, frames: gpus > 0 ? 600 : 60, kernel: burn, extra: [rounds] },
    'copy-bound': { bytes: 8 * 2 ** 20, frames: gpus > 0 ? 600 : 60, kernel: touch, extra: [] },
  };
  const rows = [];
  for (const [name, { bytes, frames, kernel, extra }] of Object.entries(cases)) {
    const words = bytes / 4;
    const config = { grid: Math.min(1024, words / 256), block: 256 };
    const pools = {
      one: new LanePool(devices[0], { lanesPerDevice, inFlight: 2 * lanesPerDevice }),
      all: new LanePool(devices, { lanesPerDevice, inFlight: 2 * lanesPerDevice * devices.length }),
    };
    let checksum = 0;
    const run = async (pool, n) => {
      const start = performance.now();
      const done = await lastValueFrom(
        framesFrom(pool, { dtype: 'u32', length: words, count: n }, (frame, i) => void (frame.data[0] = i)).pipe(
          upload((frame) => frame),
          launch(kernel, (w) => ({ config, args: [w.buffers.input, words, ...extra] })),
          download((w) => w.buffers.input, 'output', { lend: 'next' }),
          tap((w) => (checksum += w.results.output.data[0])),
          count(),
        ),
      );
      if (done !== n) throw new Error(`${name}: ${done} of ${n} frames came back`);
      return n / ((performance.now() - start) / 1000);
    };
    for (const pool of Object.values(pools)) await run(pool, 4 * devices.length * lanesPerDevice); // warm-up: pools, modules on each device
    const best = { one: 0, all: 0 };
    for (let round = 0; round < 3; round++)
      for (const [which, pool] of Object.entries(pools)) best[which] = Math.max(best[which], await run(pool, frames));
    for (const pool of Object.values(pools)) pool.close();
    if (checksum === 0) throw new Error(`${name}: no result was read`);
    const perDevice = (bytes * 2 * best.all) / devices.length / 1e9;
    rows.push({
      case: name,
      frame_MiB: bytes / 2 ** 20,
      one_device_frames_per_s: best.one,
      devices: devices.length,
      all_devices_frames_per_s: best.all,
      ratio: best.all / best.one,
      copies_GBps_per_device: perDevice,
      target: name === 'kernel-bound' ? `≥ ${(0.9 * devices.length).toFixed(1)} (0.9 × devices)` : 'reported',
    });
  }
  module.close();
  const where = gpus > 0 ? devices.map((d) => `${d}: ${d.name}`).join(', ') : `${devices.length} host devices (no GPU: timings mean nothing)`;
  const short = devices.length < wanted ? `; ${wanted} devices asked for, ${devices.length} here` : '';
  const peers = devices.slice(1).map((d) => `${devices[0]} ↔ ${d}: ${devices[0].canAccessPeer(d) ? 'peer access' : 'no peer access'}`).join(', ');
  report(
    'pipeline-devices',
    `the pipeline on ${devices.length} device(s) against 1, pinned in and lent out, ${lanesPerDevice} lanes per device; ${where}${short}${peers ? `; ${peers}` : ''}`,
    rows,
    'kernel-bound ratio ≥ 0.9 × devices; copy-bound reported',
  );
  return rows;
}
