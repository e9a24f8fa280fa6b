// A sticky error (an illegal address) breaks the whole context, so it runs in a child process.
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { describeGpu } from '../support/gpu.js';

const script = `
import { Device } from './dist/src/index.js';
const device = Device.default();
const s = device.createStream();
const module = await device.compile('extern "C" __global__ void poke(int* p) { *p = 1; }', { cache: false });
const poke = module.kernel('poke', ['ptr']);
const result = { step: { ran: false } };
s.on('error', (e, context) => { result.step.error = { code: e.code, kind: context.kind }; });
s.launch(poke, { grid: 1, block: 1 }, [16n]);
// A held step behind the fault: its notification reports the error instead of running it.
s.hostLaunch(() => { result.step.ran = true; });
const spinning = s.synchronized({ spin: 100 }); // the watcher gives up: its fallback reports the error
try { await s.synchronized(); } catch (e) { result.wait = { type: e.constructor.name, code: e.code, name: e.name }; }
try { await spinning; } catch (e) { result.spin = e.code; }
result.poisoned = device.poisoned?.name;
try { s.alloc('u32', 1); } catch (e) { result.after = { code: e.code, name: e.name }; }
console.log(JSON.stringify(result));
`;

describeGpu('sticky errors', () => {
  it('reject pending work with the error and make later calls fail fast', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: new URL('../..', import.meta.url).pathname });
    const result = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(result.wait).toEqual({ type: 'CudaError', code: 700, name: 'CUDA_ERROR_ILLEGAL_ADDRESS' });
    expect(result.step).toEqual({ ran: false, error: { code: 700, kind: 'hostLaunch' } });
    expect(result.spin).toBe(700);
    expect(result.poisoned).toBe('CUDA_ERROR_ILLEGAL_ADDRESS');
    expect(result.after).toEqual({ code: 700, name: 'CUDA_ERROR_ILLEGAL_ADDRESS' });
  });
});
