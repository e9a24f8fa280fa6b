// `rxcuda info`: first what was found and which device Device.default() gives, then the driver,
// every CUDA device (or precisely why there are none), NVRTC, cuBLAS and cuFFT (each missing one
// in one line: what to install or set), and how the host device checks kernel sources. Where
// each missing one was looked for is said with --verbose.
import { Device, hostCompiler, libraryInfo, type HostCompilerInfo } from '../index.js';
import { checkOptions } from '../core/base/options.js';
import { bytes } from './format.js';
import { packageVersion } from './version.js';

function cudaVersion(version: number): string {
  return `${Math.floor(version / 1000)}.${(version % 1000) / 10}`;
}

/** What to do about a missing part of the CUDA toolkit, in one line. */
function installHint(part: string, use: string): string {
  return `not found: install the CUDA toolkit's ${part}, or set CUDA_PATH to a toolkit that has it (${use})`;
}

/** The host device's check of kernel sources, in one line. */
function hostCheckLine(check: HostCompilerInfo): string {
  if (check.checked) return `host device: kernel sources checked by ${check.compiler === 'nvrtc' ? 'NVRTC' : 'nvcc'} ${check.version} (${check.path})`;
  const why = check.problem.startsWith('no CUDA compiler was found')
    ? 'no CUDA compiler was found: install the CUDA toolkit (NVRTC, or nvcc on the PATH), or set CUDA_PATH'
    : check.problem;
  return `host device: kernel sources are not checked (${why}); RXCUDA_HOST_CHECK=require makes compiling one an error`;
}

/**
 * Prints what was found (the driver, the devices, NVRTC, cuBLAS, cuFFT, the host device's check of
 * kernel sources) and which device Device.default() gives; with `verbose`, where each missing one
 * was looked for. Exits 0 whether or not a device is usable.
 * @throws TypeError for an unknown option.
 */
export async function info(options: { json?: boolean; verbose?: boolean }): Promise<void> {
  checkOptions('options', options, ['json', 'verbose']);
  const driver = Device.driverInfo();
  const devices = driver.available && Device.count() > 0 ? Device.all() : []; // all() falls back to the host device
  const libraries = libraryInfo();
  const check = await hostCompiler();
  if (options.json) {
    const list = devices.map((d) => ({ ordinal: d.ordinal, arch: d.arch, ...d.properties }));
    console.log(JSON.stringify({ driver, libraries, devices: list, hostCompiler: check, default: String(Device.default()) }, null, 2));
    return;
  }
  const nv = driver.nvrtc;
  const missing = [!nv.available && 'NVRTC', !libraries.cublas.available && 'cuBLAS', !libraries.cufft.available && 'cuFFT', !check.checked && 'a CUDA compiler'].filter(Boolean);
  const first = devices[0];
  console.log(`rxcuda ${packageVersion()} on Node.js ${process.version}`);
  console.log(
    first
      ? `found ${devices.length === 1 ? 'a CUDA device' : `${devices.length} CUDA devices`}: Device.default() is ${first} (${first.name}, ${first.arch})`
      : 'found no CUDA device: Device.default() is the host device (the CPU reference backend)',
  );
  if (missing.length > 0) console.log(`missing: ${missing.join(', ')} (below: what to install or set${options.verbose ? '' : '; --verbose: where each was looked for'})`);
  const verbose = (text: string): void => {
    if (options.verbose) console.log(`  ${text}`);
  };

  console.log(driver.version ? `driver: CUDA ${cudaVersion(driver.version)}` : 'driver: none');
  if (!driver.available) console.log(`No CUDA device: ${driver.problem}.`);
  else if (devices.length === 0) console.log('No CUDA device: the driver sees none.');
  for (const d of devices) {
    const p = d.properties;
    const features = [p.cooperativeLaunch && 'cooperative launch', p.clusterLaunch && 'cluster launch', p.memoryPools && 'memory pools'].filter(Boolean);
    console.log(`[${d.ordinal}] ${p.name}: compute ${p.major}.${p.minor} (${d.arch}), ${p.multiprocessors} multiprocessors, ${bytes(p.totalMemory)}, ${features.join(', ')}`);
  }

  if (nv.available) console.log(`NVRTC: ${nv.version} (${nv.path})`);
  else {
    console.log(`NVRTC: ${nv.path ? `not usable: ${nv.problem}` : installHint('NVRTC', 'kernels compile with it on a GPU, and are checked with it on the host device')}`);
    verbose(nv.problem);
  }
  const uses = { cuBLAS: 'device.blas and gemm need it on a GPU', cuFFT: 'device.fft and fft need it on a GPU' };
  for (const [name, library] of [['cuBLAS', libraries.cublas], ['cuFFT', libraries.cufft]] as const) {
    if (library.available) console.log(`${name}: ${library.version} (${library.path})`);
    else {
      console.log(`${name}: ${library.path ? `not usable: ${library.problem}` : installHint(name, uses[name])}`);
      verbose(`looked for: ${library.searched.join(', ')}`);
    }
  }
  console.log(hostCheckLine(check));
  if (!check.checked) verbose(check.problem);
}
