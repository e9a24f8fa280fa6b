// cuBLAS and cuFFT are loaded at run time, never at import and never linked: where they are
// missing, or lack an entry point, the first call that needs one says so with a LibraryError
// that names the library and every file tried. Child processes stand for other environments:
// CUDA_PATH pointing at an empty folder, or at a fake cuBLAS built here from a few lines of C.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LibraryError, libraryInfo } from '../../src/index.js';
import { gpu } from '../support/gpu.js';

const entry = new URL('../../dist/src/index.js', import.meta.url).href;

/** Runs `body` (module code, with `m` the rxcuda module) in a child process; its JSON output. */
function child(body: string, env: NodeJS.ProcessEnv = {}): unknown {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(entry)});\n${body}`], {
    env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000,
  });
  expect(run.signal, `the child hung or crashed: ${run.stderr}`).toBeNull();
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

/** Module code: `has(name)` tells whether a library named so is mapped into the process now. */
const mapped = `const { readFileSync } = await import('node:fs'); const has = (name) => readFileSync('/proc/self/maps', 'utf8').includes(name);`;

describe('libraryInfo', () => {
  it('says whether each library can be used, and where it came from or every file tried', () => {
    const { cublas, cufft } = libraryInfo();
    for (const [info, file] of [[cublas, 'libcublas.so'], [cufft, 'libcufft.so']] as const) {
      if (info.available) {
        expect(info.path).toContain(file);
        expect(info.version).toMatch(/^\d+\.\d+\.\d+$/);
        expect(info.problem).toBe('');
      } else {
        expect(info.problem).toContain('was not found');
        expect(info.searched).toContain(`/usr/local/cuda/lib64/${file}`);
        expect(info.searched.at(-1)).toBe(`${file} (on the loader path)`);
      }
    }
  });

  it('looks in CUDA_PATH first, and names what it tried', () => {
    const empty = mkdtempSync(join(tmpdir(), 'rxcuda-no-libraries-'));
    const { cublas } = child(`console.log(JSON.stringify(m.libraryInfo()));`, { CUDA_PATH: empty }) as { cublas: { searched: string[]; problem: string } };
    expect(cublas.searched[0]).toBe(`${empty}/lib64/libcublas.so.13`);
    expect(cublas.searched).toContain(`${empty}/targets/x86_64-linux/lib/libcublas.so.12`);
    rmSync(empty, { recursive: true, force: true });
  });
});

describe('the libraries at import', () => {
  it('are not loaded by importing rxcuda, nor by the host device\'s library calls', () => {
    const out = child(`${mapped}
      const device = m.Device.host(), s = device.createStream();
      const a = s.alloc('f32', 4);
      device.blas.gemm(s, a, a, s.alloc('f32', 4), { m: 2, n: 2, k: 2 });
      device.fft.c2c(s, a, s.alloc('f32', 4), { shape: 2 });
      await s.synchronized();
      console.log(JSON.stringify([has('libcublas'), has('libcufft')]));`) as boolean[];
    expect(out).toEqual([false, false]);
  });

  it.skipIf(!gpu.available)('are loaded by the first call on a GPU that needs them', () => {
    const out = child(`${mapped}
      const device = m.Device.get(0), s = device.createStream();
      const a = s.alloc('f32', 4);
      const before = [has('libcublas'), has('libcufft')];
      device.blas.gemm(s, a, a, s.alloc('f32', 4), { m: 2, n: 2, k: 2 });
      const between = [has('libcublas'), has('libcufft')];
      device.fft.c2c(s, a, s.alloc('f32', 4), { shape: 2 });
      await s.synchronized();
      console.log(JSON.stringify([before, between, [has('libcublas'), has('libcufft')]]));`);
    expect(out).toEqual([[false, false], [true, false], [true, true]]);
  });
});

const compilerEnv = { ...process.env, LD_PRELOAD: '' };
const hasCompiler = spawnSync('cc', ['--version'], { env: compilerEnv }).status === 0;
let fake: string;

beforeAll(() => {
  if (!hasCompiler) return;
  fake = mkdtempSync(join(tmpdir(), 'rxcuda-fake-cublas-'));
  mkdirSync(join(fake, 'lib64'));
  writeFileSync(join(fake, 'fake.c'), 'int cublasCreate_v2(void** handle) { *handle = 0; return 0; }\n');
  execFileSync('cc', ['-shared', '-fPIC', '-o', join(fake, 'lib64', 'libcublas.so.13'), join(fake, 'fake.c')], { env: compilerEnv });
});

afterAll(() => fake && rmSync(fake, { recursive: true, force: true }));

describe.skipIf(!hasCompiler)(`a cuBLAS without the entry points rxcuda needs${hasCompiler ? '' : ' (skipped: no C compiler `cc`)'}`, () => {
  it('is reported by libraryInfo with its path and what it lacks', () => {
    const { cublas } = child(`console.log(JSON.stringify(m.libraryInfo()));`, { CUDA_PATH: fake }) as { cublas: { available: boolean; path: string; problem: string } };
    expect(cublas.available).toBe(false);
    expect(cublas.path).toBe(join(fake, 'lib64', 'libcublas.so.13'));
    expect(cublas.problem).toBe(`${cublas.path} was found but lacks cublasDestroy_v2, cublasGetProperty, cublasSetStream_v2, cublasSetWorkspace_v2, cublasGemmEx, cublasGemmStridedBatchedEx, which rxcuda needs (cuBLAS 12 or newer)`);
  });

  it.skipIf(!gpu.available)('fails the first gemm on a GPU with a LibraryError (code -2), and every later one', () => {
    const out = child(`
      const device = m.Device.get(0), s = device.createStream(), a = s.alloc('f32', 4);
      const errors = [];
      for (let i = 0; i < 2; i++) {
        try { device.blas.gemm(s, a, a, s.alloc('f32', 4), { m: 2, n: 2, k: 2 }); }
        catch (e) { errors.push({ library: e instanceof m.LibraryError, name: e.name, code: e.code, status: e.status, message: e.message }); }
      }
      console.log(JSON.stringify(errors));`, { CUDA_PATH: fake }) as { message: string }[];
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ library: true, name: 'LibraryError', code: -2, status: 'MISSING_ENTRY_POINT' });
    expect(out[0]!.message).toContain(join(fake, 'lib64', 'libcublas.so.13'));
    expect(out[1]).toEqual(out[0]);
  });
});

describe('LibraryError', () => {
  it('is an RxcudaError with the library, its status and the files tried', () => {
    const error = new LibraryError('cuFFT', -1, 'NOT_FOUND', 'dlopen', 'cuFFT was not found', ['a', 'b']);
    expect(error).toMatchObject({ name: 'LibraryError', library: 'cuFFT', code: -1, status: 'NOT_FOUND', call: 'dlopen', searched: ['a', 'b'] });
    expect(Object.isFrozen(error.searched)).toBe(true);
  });
});
