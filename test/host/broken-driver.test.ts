// A driver that loads but cannot be used: a fake libcuda.so.1, built here from a few lines of C,
// whose cuInit fails (a driver/library mismatch, a container without device access) or whose
// entry points resolve to null. Each child process must answer, not hang, and fall back to the host.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath } from '../support/cli.js';

const entry = new URL('../../dist/src/index.js', import.meta.url).href;

const source = `
#include <stdint.h>
#include <string.h>
int cuDriverGetVersion(int* v) { *v = 12040; return 0; }
static int cuInit(unsigned flags) { (void)flags; return INIT_RESULT; }
static int cuGetErrorName(int e, const char** s) { *s = e == 803 ? "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" : e == 304 ? "CUDA_ERROR_OPERATING_SYSTEM" : "CUDA_ERROR_UNKNOWN"; return 0; }
static int cuGetErrorString(int e, const char** s) { (void)e; *s = "fake driver failure"; return 0; }
int cuGetProcAddress_v2(const char* name, void** fn, int version, uint64_t flags, int* status) {
  (void)version; (void)flags;
  *fn = 0;
  if (ENTRIES > 0 && !strcmp(name, "cuInit")) *fn = (void*)cuInit;
  if (ENTRIES > 1 && !strcmp(name, "cuGetErrorName")) *fn = (void*)cuGetErrorName;
  if (ENTRIES > 1 && !strcmp(name, "cuGetErrorString")) *fn = (void*)cuGetErrorString;
  if (status) *status = 0; /* CU_GET_PROC_ADDRESS_SUCCESS, whatever it gave */
  return 0;
}
`;

/** What a child process saw of the broken driver, or how it failed to answer. */
interface Report {
  info: { available: boolean; code: number; codeName: string; problem: string; deviceCount: number };
  get: { isCudaError: boolean; code: number; name: string; call: string; message: string } | null;
  defaultKind: string;
  compile: string;
  hostWorks: boolean;
}

const probe = `
  const m = await import(${JSON.stringify(entry)});
  const info = m.Device.driverInfo();
  let get = null;
  try { m.Device.get(0); } catch (e) {
    get = { isCudaError: e instanceof m.CudaError, code: e.code, name: e.name, call: e.call, message: e.message };
  }
  const defaultKind = m.Device.default().kind;
  let compile;
  try { await m.compile('__global__ void k() {}', { arch: 'sm_90', cache: false }); compile = 'compiled'; }
  catch (e) { compile = (e instanceof m.NvrtcError ? 'NvrtcError: ' : 'other: ') + e.message; }
  const s = m.Device.host().createStream();
  let ran = false;
  s.hostLaunch(() => { ran = true; });
  await s.synchronized();
  s.close();
  console.log(JSON.stringify({ info, get, defaultKind, compile, hostWorks: ran }));
`;

// The compiler runs without the sanitizer runtime that scripts/asan.sh preloads into everything.
const compilerEnv = { ...process.env, LD_PRELOAD: '' };
const hasCompiler = spawnSync('cc', ['--version'], { env: compilerEnv }).status === 0;
let dir: string;
/** `entries`: 2 gives cuInit and the error strings, 1 cuInit only, 0 no entry point at all. */
const variants = [
  { label: 'cuInit returns 803 (driver/library mismatch)', code: 803, entries: 2, missing: '' },
  { label: 'cuInit returns 304 (no device access)', code: 304, entries: 2, missing: '' },
  { label: 'cuInit returns 999 (unknown)', code: 999, entries: 2, missing: '' },
  { label: 'cuInit fails and cannot name its error', code: 803, entries: 1, missing: '' },
  { label: 'every entry point resolves to null', code: 0, entries: 0, missing: 'cuInit, cuDeviceGetCount' },
  { label: 'cuInit succeeds, the rest resolve to null', code: 0, entries: 1, missing: 'cuDeviceGetCount, cuDeviceGet' },
];

function libraryDir(code: number, entries: number): string {
  return join(dir, `${code}-${entries}`);
}

function childEnv(code: number, entries: number): NodeJS.ProcessEnv {
  return { ...process.env, LD_LIBRARY_PATH: libraryDir(code, entries) };
}

beforeAll(() => {
  if (!hasCompiler) return;
  dir = mkdtempSync(join(tmpdir(), 'rxcuda-fake-driver-'));
  writeFileSync(join(dir, 'fake.c'), source);
  for (const { code, entries } of variants) {
    const out = libraryDir(code, entries);
    mkdirSync(out);
    execFileSync('cc', ['-shared', '-fPIC', `-DINIT_RESULT=${code}`, `-DENTRIES=${entries}`,
      '-o', join(out, 'libcuda.so.1'), join(dir, 'fake.c')], { env: compilerEnv });
  }
});

afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

const title = `Device with a broken driver${hasCompiler ? '' : ' (skipped: no C compiler `cc` to build the fake driver)'}`;
describe.skipIf(!hasCompiler)(title, () => {
  for (const { label, code, entries, missing } of variants) {
    describe(label, () => {
      it('answers with a CudaError, falls back to the host device, and compile() settles', () => {
        const run = spawnSync(process.execPath, ['--input-type=module', '-e', probe], {
          env: childEnv(code, entries), encoding: 'utf8', timeout: 20_000,
        });
        expect(run.signal, `the child hung or crashed: ${run.stderr}`).toBeNull();
        expect(run.status, run.stderr).toBe(0);
        const report = JSON.parse(run.stdout) as Report;
        const names: Record<number, string> = { 803: 'CUDA_ERROR_SYSTEM_DRIVER_MISMATCH', 304: 'CUDA_ERROR_OPERATING_SYSTEM', 999: 'CUDA_ERROR_UNKNOWN' };
        const why = entries > 1 ? 'fake driver failure' : `unknown CUDA error ${code}`;
        const expected = missing
          ? { code: 500, name: 'CUDA_ERROR_NOT_FOUND', problem: `the NVIDIA driver (CUDA 12.4) gives no entry point for ${missing}` }
          : { code, name: names[code]!, problem: `cuInit failed: ${names[code]} (${why})` };
        expect(report.info).toMatchObject({ available: false, code: expected.code, codeName: expected.name, deviceCount: 0 });
        expect(report.info.problem).toContain(expected.problem);
        expect(report.get).toEqual({ isCudaError: true, code: expected.code, name: expected.name, call: 'cuInit', message: report.info.problem });
        expect(report.defaultKind).toBe('host');
        // NVRTC needs no driver: it compiles where it is installed, else says it is missing.
        expect(report.compile).toMatch(/^(compiled|NvrtcError: NVRTC was not found)/);
        expect(report.hostWorks).toBe(true);
      });

      it('`rxcuda info` explains it and exits 0', () => {
        const run = spawnSync(process.execPath, [cliPath, 'info'], { env: childEnv(code, entries), encoding: 'utf8', timeout: 20_000 });
        expect(run.signal, `the child hung or crashed: ${run.stderr}`).toBeNull();
        expect(run.status, run.stderr).toBe(0);
        expect(run.stdout).toContain('driver: CUDA 12.4');
        expect(run.stdout).toMatch(missing ? /No CUDA device: the NVIDIA driver \(CUDA 12\.4\) gives no entry point for cu\w+/ : /No CUDA device: cuInit failed: CUDA_ERROR_\w+ \(/);
      });
    });
  }
});
