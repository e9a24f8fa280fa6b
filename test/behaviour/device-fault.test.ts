// A device that breaks (a sticky error) in a pipeline over several: by default the pipeline
// errors; with an onDeviceFault function, that device's values reach it with the CudaError and
// the other devices finish the rest. A host device is broken by a CPU kernel that throws a sticky
// CudaError; a GPU by an illegal address, in a child process (the context stays broken).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { firstValueFrom, map, range, toArray } from 'rxjs';
import { CudaError, Device, PipelineError, currentLaunch, download, launch, onStreams, upload, type Work } from '../../src/index.js';
import { gpu } from '../support/gpu.js';

const N = 256;
const grid = { grid: 1, block: 256 };
const illegalAddress = () => new CudaError(700, 'CUDA_ERROR_ILLEGAL_ADDRESS', 'cuLaunchKernelEx', 'an illegal memory access was encountered');

describe('a device that breaks in a pipeline over several', () => {
  // A broken device stays broken: each test takes host devices no other test used.
  let used = 1;
  const freshHosts = (count: number) => Device.hosts(used + count).slice(used, (used += count));
  // Steps that fail once the pipeline has errored have nobody to tell but the process: their
  // warnings are collected here, where Node would print them.
  let warnings: string[] = [];
  beforeEach(() => {
    warnings = [];
    vi.spyOn(process, 'emitWarning').mockImplementation(((warning: string | Error) => void warnings.push(String(warning))) as typeof process.emitWarning);
  });
  afterEach(async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    vi.restoreAllMocks();
  });

  /** Values 0..count-1 through a kernel that adds 1, twice, and breaks `victim` on its first launch there. */
  async function run(devices: Device[], victim: Device | 'all', count: number, onDeviceFault?: (failure: PipelineError) => void) {
    const module = await devices[0]!.compile('extern "C" __global__ void add_one(unsigned* x, unsigned n) {}');
    const addOne = module.kernel('add_one', ['ptr<u32>', 'u32'], {
      cpu: async (_, [x, n]) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        const device = currentLaunch().stream.device;
        if (victim === 'all' || device === victim) throw illegalAddress();
        for (let i = 0; i < n; i++) x[i] = x[i]! + 1;
      },
    });
    return firstValueFrom(
      range(0, count).pipe(
        map((i) => new Uint32Array(N).fill(i)),
        onStreams(devices, { lanesPerDevice: 2, inFlight: 3 * devices.length, ...(onDeviceFault ? { onDeviceFault } : {}) }),
        upload((x) => x, 'x'),
        launch(addOne, (w) => ({ config: grid, args: [w.buffers.x, N] })),
        launch(addOne, (w) => ({ config: grid, args: [w.buffers.x, N] })),
        download((w) => w.buffers.x, 'x'),
        toArray(),
      ),
    );
  }

  // The runs that go on come first: a pipeline that errored leaves its broken device's queued
  // steps failing for a while after, with nobody but the process to tell.
  for (const count of [2, 4]) {
    it(`with onDeviceFault, settles the broken device's values with its CudaError and finishes the rest on the others (${count} host devices)`, async () => {
      const devices = freshHosts(count);
      const victim = devices.at(-1)!;
      const failures: PipelineError[] = [];
      const results: Work<Uint32Array, unknown, { x: Uint32Array }>[] = await run(devices, victim, 60, (f) => void failures.push(f));
      expect(failures.length).toBeGreaterThan(0);
      for (const failure of failures) {
        expect(failure).toBeInstanceOf(PipelineError);
        expect(failure.cause).toMatchObject({ code: 700, name: 'CUDA_ERROR_ILLEGAL_ADDRESS' });
      }
      // Every value either came through, right, or failed, once: nothing is lost.
      const indexes = [...results.map((w) => w.index), ...failures.map((f) => f.index)].sort((a, b) => a - b);
      expect(indexes).toEqual(Array.from({ length: 60 }, (_, i) => i));
      for (const w of results) {
        expect(w.lane.stream.device).not.toBe(victim);
        expect([...new Set(w.results.x)]).toEqual([w.index + 2]);
      }
      expect(new Set(results.map((w) => w.lane.stream.device)).size).toBe(count - 1);
      expect(warnings).toEqual([]); // every failure reached onDeviceFault
    });
  }

  for (const count of [2, 4]) {
    it(`errors the pipeline with the CudaError by default (${count} host devices)`, async () => {
      const devices = freshHosts(count);
      const victim = devices[1]!;
      const error = await run(devices, victim, 20).then(() => undefined, (e: unknown) => e);
      const cause = error instanceof PipelineError ? error.cause : error;
      expect(cause).toBeInstanceOf(CudaError);
      expect(cause).toMatchObject({ code: 700, name: 'CUDA_ERROR_ILLEGAL_ADDRESS' });
      expect(victim.poisoned?.code).toBe(700);
      expect(devices.filter((d) => d !== victim).every((d) => d.poisoned === undefined)).toBe(true);
    });

    it(`with onDeviceFault, errors the pipeline once every device is broken (${count} host devices)`, async () => {
      const devices = freshHosts(count);
      const failures: PipelineError[] = [];
      const error = await run(devices, 'all', 20, (f) => void failures.push(f)).then(() => undefined, (e: unknown) => e);
      const cause = error instanceof PipelineError ? error.cause : error;
      expect(cause).toMatchObject({ code: 700 });
      expect(devices.every((d) => d.poisoned?.code === 700)).toBe(true);
    });
  }
});

const cudaCount = gpu.available ? Device.count() : 0;
const script = `
import { firstValueFrom, map, range, toArray } from 'rxjs';
import { Device, download, launch, onStreams, upload } from './dist/src/index.js';
const devices = Device.all();
const victim = devices[1];
const module = await devices[0].compile(\`extern "C" __global__ void add_one(unsigned* x, unsigned n, unsigned long long bad) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (bad) *(volatile unsigned*)bad = 1;
  else if (i < n) x[i] += 1;
}\`, { cache: false });
const addOne = module.kernel('add_one', ['ptr<u32>', 'u32', 'u64']);
const failures = [];
const results = await firstValueFrom(range(0, 200).pipe(
  map((i) => new Uint32Array(256).fill(i)),
  onStreams(devices, { lanesPerDevice: 2, onDeviceFault: (f) => failures.push({ index: f.index, code: f.cause?.code }) }),
  upload((x) => x, 'x'),
  launch(addOne, (w) => ({ config: { grid: 1, block: 256 }, args: [w.buffers.x, 256, w.stream.device === victim && w.index >= 20 ? 16n : 0n] })),
  download((w) => w.buffers.x, 'x'),
  toArray(),
));
const wrong = results.filter((w) => w.results.x.some((v) => v !== w.index + 1)).length;
console.log(JSON.stringify({ results: results.map((w) => w.index), failures, wrong, poisoned: victim.poisoned?.code, others: devices.filter((d) => d !== victim).map((d) => d.poisoned?.code ?? 0) }));
`;

describe.skipIf(cudaCount < 2)(`a GPU that breaks in a pipeline over several${cudaCount < 2 ? ` (skipped: needs two CUDA devices, this machine has ${cudaCount})` : ''}`, () => {
  it('reaches onDeviceFault with CUDA_ERROR_ILLEGAL_ADDRESS for its values while the others finish the rest', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: new URL('../..', import.meta.url).pathname });
    const result = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(result.poisoned).toBe(700);
    expect(result.others.every((code: number) => code === 0)).toBe(true);
    expect(result.wrong).toBe(0);
    expect(result.failures.length).toBeGreaterThan(0);
    expect(result.failures.every((f: { code: number }) => f.code === 700)).toBe(true);
    const indexes = [...result.results, ...result.failures.map((f: { index: number }) => f.index)].sort((a: number, b: number) => a - b);
    expect(indexes).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });
});
