// The host device compiles each module's source too, where a CUDA compiler is found (NVRTC, else
// nvcc), and refuses what a GPU would: a source that does not compile, a kernel name that is not
// an entry of the code, a signature the compiled parameters contradict. Where none is found, it
// says so once, in a warning and in `rxcuda info`. The tests of the check skip without a compiler;
// CI has nvcc, and names it in RXCUDA_EXPECT_TOOLS, so that they fail there instead.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CudaError, Device, HOST_UNCHECKED_WARNING, NvrtcError } from '../../src/index.js';
import { cliPath } from '../support/cli.js';
import { describeWithTool } from '../support/tools.js';

const device = Device.host();
const cpu = () => {};

const SOURCE = String.raw`
struct Params { float a, b, c; };
extern "C" __global__ void saxpy(unsigned n, float a, const float* x, float* y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void by_value(Params p, double d) {}
template <typename T> __global__ void scale(T* x, T a) { x[threadIdx.x] *= a; }
`;

describeWithTool('nvcc', "the host device's compile check", () => {
  const cache = mkdtempSync(join(tmpdir(), 'rxcuda-host-check-'));
  afterAll(() => rmSync(cache, { recursive: true, force: true }));

  it('refuses a source that does not compile with an NvrtcError and the log, as a GPU does', async () => {
    const refused = await device.compile('this is not CUDA }{', { name: 'broken.cu', cache: false }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NvrtcError);
    expect(refused).toMatchObject({ code: 6 });
    expect((refused as NvrtcError).log).toMatch(/^broken\.cu\(1\): error: /m);
  });

  it('refuses a kernel name that is not an entry of the code, as the driver does', async () => {
    const module = await device.compile(SOURCE, { cache });
    const refused = (() => {
      try {
        return module.kernel('nope', ['u32'], { cpu });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(CudaError);
    expect(refused).toMatchObject({ code: 500, name: 'CUDA_ERROR_NOT_FOUND', call: 'cuModuleGetFunction' });
    expect((refused as Error).message).toMatch(/has no kernel 'nope' \(its kernels: .*saxpy/);
  });

  it('refuses a signature that the compiled parameters contradict, in count or size', async () => {
    const module = await device.compile(SOURCE, { cache });
    expect(() => module.kernel('saxpy', ['u32', 'f64', 'ptr<f32>', 'ptr<f32>'], { cpu })).toThrow(
      new TypeError('Expected `signature` to be 4 parameters of 4, 4, 8, 8 bytes, as the kernel declares, got [u32, f64, ptr<f32>, ptr<f32>] (4, 8, 8, 8 bytes)'),
    );
    expect(() => module.kernel('saxpy', ['u32', 'f32', 'ptr<f32>'], { cpu })).toThrow(/^Expected `signature` to be 4 parameters/);
  });

  it('refuses a struct alignment that the signature states and the code contradicts', async () => {
    const module = await device.compile(SOURCE, { cache });
    expect(() => module.kernel('by_value', [{ struct: 12, align: 8 }, 'f64'], { cpu })).toThrow(
      new TypeError('Expected `signature[0]` to be { struct: 12, align: 4 }, as the kernel declares, got { struct: 12, align: 8 }'),
    );
    expect(module.kernel('by_value', [{ struct: 12, align: 4 }, 'f64'], { cpu }).name).toBe('by_value');
  });

  it('takes a kernel whose name and signature are those of the code, and runs its CPU implementation', async () => {
    const module = await device.compile(SOURCE, { cache });
    const saxpy = module.kernel('saxpy', ['u32', 'f32', 'ptr<f32>', 'ptr<f32>'], {
      cpu: (_, [n, a, x, y]) => {
        for (let i = 0; i < n; i++) y[i] = Math.fround(a * x[i]! + y[i]!);
      },
    });
    using stream = device.createStream();
    const [x, y, host] = [stream.alloc('f32', 4), stream.alloc('f32', 4), device.allocHost('f32', 4)];
    stream.fill(x, 1);
    stream.fill(y, 2);
    stream.launch(saxpy, { grid: 1, block: 4 }, [4, 3, x, y]);
    stream.copy(host, y);
    await stream.synchronized();
    expect([...host.data]).toEqual([5, 5, 5, 5]);
  });

  it("finds a template's kernel by its name expression, and refuses one that names nothing", async () => {
    const module = await device.compile(SOURCE, { cache, expressions: ['scale<float>'] });
    expect(module.kernel('scale<float>', ['ptr<f32>', 'f32'], { cpu }).name).toBe('scale<float>');
    expect(() => module.kernel('scale<float>', ['ptr<f32>', 'f64'], { cpu })).toThrow(TypeError);
    await expect(device.compile(SOURCE, { cache: false, expressions: ['scale<nothing>'] })).rejects.toBeInstanceOf(NvrtcError);
  });

  it('compiles a source once: the check of the same source and options comes from the disk cache', async () => {
    const source = `${SOURCE}\n// ${Date.now()}`;
    const first = await device.compile(source, { cache });
    const again = await device.compile(source, { cache });
    expect([first.fromCache, again.fromCache]).toEqual([false, true]);
    expect(() => again.kernel('nope', [], { cpu })).toThrow(CudaError);
  });

  it('reports a template specialization that does not compile on the stream, as a GPU does', async () => {
    using template = device.template('extern "C" __global__ void broken(unsigned* out) { out[0] = NOT_DEFINED; }', { cache: false });
    const broken = template.kernel('broken', ['ptr<u32>'], { specialize: () => ({ OTHER: 1 }), cpu });
    using stream = device.createStream();
    const failure = new Promise((resolve) => stream.once('error', resolve));
    stream.launch(broken, { grid: 1, block: 1 }, [stream.alloc('u32', 1)]);
    expect(await failure).toBeInstanceOf(NvrtcError);
  });
});

describe('the host device without a CUDA compiler', () => {
  // A process that finds none: no nvcc on its PATH, and a CUDA_PATH with nothing in it.
  const env = { ...process.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, CUDA_PATH: '/nonexistent' };
  const entry = new URL('../../dist/src/index.js', import.meta.url).href;
  const probe = `
    const m = await import(${JSON.stringify(entry)});
    const warnings = [];
    const events = [];
    process.on('warning', (w) => (warnings.push({ code: w.code, message: w.message }), events.push('warning')));
    const device = m.Device.host();
    const check = await m.hostCompiler();
    await new Promise((resolve) => setImmediate(resolve));
    events.push('compiler looked for');
    const nvrtc = m.Device.driverInfo().nvrtc.available;
    // NVRTC found after all: the sources below would be refused, and the cases skip.
    if (nvrtc) { console.log(JSON.stringify({ check, nvrtc })); process.exit(0); }
    const module = await device.compile('this is not CUDA }{', { cache: false });
    events.push('compiled');
    const kernel = module.kernel('nope', ['u32'], { cpu() {} });
    await device.compile('nor is this }{', { cache: false });
    events.push('compiled');
    await new Promise((resolve) => setImmediate(resolve));
    console.log(JSON.stringify({ check, nvrtc, kernel: kernel.name, warnings, events }));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8', env, timeout: 60_000 });
  const seen = JSON.parse(run.stdout || '{}') as { check?: { checked: boolean; problem: string }; nvrtc?: boolean; kernel?: string; warnings?: { code: string; message: string }[]; events?: string[] };
  const skip = seen.nvrtc === true; // NVRTC where the addon always looks (/usr/local/cuda/lib64) cannot be hidden

  it.skipIf(skip)('checks nothing, and says so once in a warning with a code', () => {
    expect(run.stderr.match(/\[RXCUDA_HOST_UNCHECKED\]/g)).toHaveLength(1); // Node prints the warning too
    expect(seen.check).toMatchObject({ checked: false, problem: expect.stringMatching(/^no CUDA compiler was found: .*no nvcc \(tried .*\/nonexistent\/bin\/nvcc\)$/) });
    expect(seen.kernel).toBe('nope'); // not checked: taken as it is
    expect(seen.warnings).toEqual([{ code: HOST_UNCHECKED_WARNING, message: expect.stringMatching(/^The host device does not check kernel sources against a CUDA compiler, as a GPU would: no CUDA compiler was found.* \(RXCUDA_HOST_CHECK=require makes this an error\)\.$/) }]);
  });

  it.skipIf(skip)('warns when the first source is compiled, before its compile resolves, not when the compiler is looked for', () => {
    expect(seen.events).toEqual(['compiler looked for', 'warning', 'compiled', 'compiled']);
  });

  /** What compiling a source did in a process without a compiler, with RXCUDA_HOST_CHECK=`mode`. */
  function compileWith(mode: string) {
    const code = `
      const m = await import(${JSON.stringify(entry)});
      const warnings = [];
      process.on('warning', (w) => warnings.push(w.code));
      const outcome = await m.Device.host().compile('extern "C" __global__ void k() {}', { cache: false }).then(
        (module) => ({ compiled: module.kernel('k', [], { cpu() {} }).name }),
        (e) => ({ name: e.name, nvrtcError: e instanceof m.NvrtcError, rxcudaError: e instanceof m.RxcudaError, code: e.code, message: e.message }),
      );
      await new Promise((resolve) => setImmediate(resolve));
      console.log(JSON.stringify({ outcome, warnings }));
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', env: { ...env, RXCUDA_HOST_CHECK: mode }, timeout: 60_000 });
    return JSON.parse(child.stdout || '{}') as { outcome?: Record<string, unknown>; warnings?: string[] };
  }

  it.skipIf(skip)('refuses the source under RXCUDA_HOST_CHECK=require with an NvrtcError of code -1 that says why, and warns nothing', () => {
    const { outcome, warnings } = compileWith('require');
    expect(outcome).toEqual({
      name: 'NvrtcError',
      nvrtcError: true,
      rxcudaError: true,
      code: -1,
      message: expect.stringMatching(/^The host device cannot check this kernel source against a CUDA compiler, and RXCUDA_HOST_CHECK=require asks it to: no CUDA compiler was found: /),
    });
    expect(warnings).toEqual([]);
  });

  it.skipIf(skip)('takes the source with a warning under RXCUDA_HOST_CHECK=warn, as unset', () => {
    expect(compileWith('warn')).toEqual({ outcome: { compiled: 'k' }, warnings: [HOST_UNCHECKED_WARNING] });
  });

  it.skipIf(skip)('refuses a RXCUDA_HOST_CHECK it does not know, naming the values it takes', () => {
    const { outcome } = compileWith('strict');
    expect(outcome).toMatchObject({ name: 'RxcudaError', rxcudaError: true, nvrtcError: false });
    expect(outcome!.message).toBe('RXCUDA_HOST_CHECK is "strict": it takes "warn" (the default: a source that cannot be checked is taken, with a warning) or "require" (it is refused)');
  });

  it.skipIf(skip)('says so in `rxcuda info`, with where it looked under --verbose', () => {
    const info = spawnSync(process.execPath, [cliPath, 'info'], { encoding: 'utf8', env, timeout: 60_000 });
    expect(info.status).toBe(0);
    expect(info.stdout).toMatch(/^missing: .*a CUDA compiler/m);
    expect(info.stdout).toContain(
      '\nhost device: kernel sources are not checked (no CUDA compiler was found: install the CUDA toolkit (NVRTC, or nvcc on the PATH), or set CUDA_PATH); ' +
        'RXCUDA_HOST_CHECK=require makes compiling one an error\n',
    );
    expect(info.stdout).not.toContain('/nonexistent/bin/nvcc');
    const verbose = spawnSync(process.execPath, [cliPath, 'info', '--verbose'], { encoding: 'utf8', env, timeout: 60_000 });
    expect(verbose.stdout).toMatch(/^ {2}no CUDA compiler was found: .*no nvcc \(tried .*\/nonexistent\/bin\/nvcc\)$/m);
    const json = JSON.parse(spawnSync(process.execPath, [cliPath, 'info', '--json'], { encoding: 'utf8', env, timeout: 60_000 }).stdout) as { hostCompiler: { checked: boolean } };
    expect(json.hostCompiler.checked).toBe(false);
  });
});
