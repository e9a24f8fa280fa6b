// A sticky fault (a trap, an illegal address) in a pipeline's kernel, while other work is pending
// on another stream: every pending Promise and the pipeline settle with the CudaError, nothing is
// emitted after it, later calls fail at once, and the process exits by itself. In a child process,
// as the fault breaks the whole context.
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { describeGpu } from '../support/gpu.js';

const script = `
import { range, map } from 'rxjs';
import { Device, download, launch, onStreams, upload } from './dist/src/index.js';
const device = Device.default();
const N = 4096, BAD = Number(process.env.BAD ?? 50);
const module = await device.compile(\`
extern "C" __global__ void invert_or_fault(unsigned* x, unsigned n, unsigned index, unsigned bad) {
  if (index == bad && blockIdx.x == 0 && threadIdx.x == 0) {
#ifdef TRAP
    asm volatile("trap;");
#else
    *(volatile unsigned*)16 = 1;
#endif
  }
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = ~x[i];
}
extern "C" __global__ void spin(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < ns);
}\`, { cache: false, defines: process.env.FAULT === 'trap' ? { TRAP: 1 } : {} });
const kernel = module.kernel('invert_or_fault', ['ptr<u32>', 'u32', 'u32', 'u32']);
const spin = module.kernel('spin', ['u64']);

let faultAt;
const since = () => Math.round(performance.now() - faultAt);
const settled = {};
const watch = (name, promise) => promise.then(
  () => { settled[name] = { ok: true, ms: since() }; },
  (e) => { settled[name] = { type: e.constructor.name, code: e.code, name: e.name, ms: since() }; },
);

// Work pending on another stream: a 3 s kernel, an event, a host step and a wait behind it.
const other = device.createStream();
other.launch(spin, { grid: 1, block: 1 }, [3_000_000_000n]);
const event = other.record();
let stepRan = false;
const stepErrors = [];
other.on('error', (e, context) => stepErrors.push({ code: e.code, kind: context.kind }));
other.hostLaunch(() => { stepRan = true; });

const pipeline = { emitted: 0, afterError: 0 };
const done = new Promise((resolve) => {
  range(0, 400).pipe(
    map((i) => Uint32Array.from({ length: N }, (_, j) => i + j)),
    onStreams(device, { lanes: 2, inFlight: 4, ...(process.env.SPIN ? { spin: Number(process.env.SPIN) } : {}) }),
    upload((data) => data),
    launch(kernel, (w) => {
      if (w.index === BAD) {
        faultAt = performance.now();
        watch('event', event.completed());
        watch('synchronized', other.synchronized());
      }
      return { config: { grid: N / 256, block: 256 }, args: [w.buffers.input, N, w.index, BAD] };
    }),
    download((w) => w.buffers.input),
  ).subscribe({
    next: () => { pipeline.emitted++; if (pipeline.error) pipeline.afterError++; },
    error: (e) => {
      const cuda = e.constructor.name === 'PipelineError' ? e.cause : e;
      pipeline.error = { type: e.constructor.name, cuda: { type: cuda?.constructor.name, code: cuda?.code, name: cuda?.name }, ms: since() };
      resolve();
    },
    complete: () => { pipeline.completed = true; resolve(); },
  });
});
await done;
await new Promise((resolve) => setTimeout(resolve, 500)); // anything emitted late would show now
for (let t = performance.now(); Object.keys(settled).length < 2 && performance.now() - t < 10_000; )
  await new Promise((resolve) => setTimeout(resolve, 10));

const later = {};
const at = performance.now();
try { device.createStream(); later.createStream = 'created'; } catch (e) { later.createStream = e.code; }
try { other.alloc('u32', 1); later.alloc = 'allocated'; } catch (e) { later.alloc = e.code; }
try { await other.synchronized(); later.synchronized = 'resolved'; } catch (e) { later.synchronized = e.code; }
later.ms = Math.round(performance.now() - at);
console.log(JSON.stringify({ poisoned: device.poisoned?.code, pipeline, settled, step: { ran: stepRan, errors: stepErrors }, later }));
`;

const expected = { address: { code: 700, name: 'CUDA_ERROR_ILLEGAL_ADDRESS' }, trap: { code: 719, name: 'CUDA_ERROR_LAUNCH_FAILED' } };

// The pipeline's values on the pool's default road (watched), and on the road of watches that give
// up at once (spin 1 µs), the faulting value among the first, watched: the watcher's query is the
// first to see the fault, and the fallback's wait behind the event is refused by the broken context.
const cases = [
  ...Object.keys(expected).map((fault) => ({ fault, env: {}, what: fault === 'trap' ? 'a trap' : 'an illegal address' })),
  { fault: 'address', env: { SPIN: '1', BAD: '3' }, what: 'an illegal address in a value whose watch gives up' },
] as const;

describeGpu('sticky faults in a pipeline', () => {
  for (const { fault, env, what } of cases) {
    const { code, name } = expected[fault as keyof typeof expected];
    it(`settle every pending Promise and the pipeline with the CudaError, after ${what}`, () => {
      const started = performance.now();
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8', cwd: new URL('../..', import.meta.url).pathname, env: { ...process.env, FAULT: fault, ...env }, timeout: 60_000,
      });
      const seconds = (performance.now() - started) / 1000;
      // The process exits by itself, without a signal.
      expect(run.signal, run.stderr.slice(0, 2000)).toBeNull();
      expect(run.status, run.stderr.slice(0, 2000)).toBe(0);
      const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
      console.log(`${fault}: ${JSON.stringify(result)} (child ran ${seconds.toFixed(1)} s)`);
      expect(result.poisoned).toBe(code);
      const error = { type: 'CudaError', code, name };
      // The CudaError itself, or a PipelineError that names the operator and the value, with it as the cause.
      expect(['CudaError', 'PipelineError']).toContain(result.pipeline.error.type);
      expect(result.pipeline.error.cuda).toEqual(error);
      expect(result.pipeline.error.ms).toBeLessThan(5000);
      expect(result.pipeline.completed).toBeUndefined();
      expect(result.pipeline.emitted).toBeLessThan(400);
      expect(result.pipeline.afterError).toBe(0);
      for (const pending of ['event', 'synchronized']) {
        expect(result.settled[pending], pending).toMatchObject(error);
        expect(result.settled[pending].ms, pending).toBeLessThan(5000);
      }
      expect(result.step).toEqual({ ran: false, errors: [{ code, kind: 'hostLaunch' }] });
      expect(result.later).toMatchObject({ createStream: code, alloc: code, synchronized: code });
      expect(result.later.ms).toBeLessThan(100);
    });
  }
});
