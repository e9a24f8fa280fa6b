// `rxcuda info`: the driver, NVRTC, cuBLAS and cuFFT, every CUDA device (or precisely why there
// are none), and how the host device checks kernel sources.
import { Device, hostCompiler, libraryInfo } from '../index.js';
import { checkOptions } from '../core/base/options.js';
import { bytes } from './format.js';

function cudaVersion(version: number): string {
  return `${Math.floor(version / 1000)}.${(version % 1000) / 10}`;
}

/**
 * Prints the driver, NVRTC, cuBLAS and cuFFT, every device and the host device's check of kernel
 * sources; exits 0 whether or not a device is usable.
 * @throws TypeError for an unknown option.
 */
export async function info(options: { json?: boolean }): Promise<void> {
  checkOptions('options', options, ['json']);
  const driver = Device.driverInfo();
  const devices = driver.available && Device.count() > 0 ? Device.all() : []; // all() falls back to the host device
  const libraries = libraryInfo();
  const check = await hostCompiler();
  if (options.json) {
    const list = devices.map((d) => ({ ordinal: d.ordinal, arch: d.arch, ...d.properties }));
    console.log(JSON.stringify({ driver, libraries, devices: list, hostCompiler: check }, null, 2));
    return;
  }
  console.log(`rxcuda on Node.js ${process.version}`);
  console.log(driver.version ? `driver: CUDA ${cudaVersion(driver.version)}` : 'driver: none');
  const nv = driver.nvrtc;
  console.log(nv.available ? `NVRTC: ${nv.version} (${nv.path})` : `NVRTC: not available: ${nv.problem}`);
  for (const [name, library] of [['cuBLAS', libraries.cublas], ['cuFFT', libraries.cufft]] as const)
    console.log(library.available ? `${name}: ${library.version} (${library.path})` : `${name}: not available: ${library.problem}`);
  console.log(
    check.checked
      ? `host device: kernel sources checked by ${check.compiler === 'nvrtc' ? 'NVRTC' : 'nvcc'} ${check.version} (${check.path})`
      : `host device: kernel sources are not checked (${check.problem})`,
  );
  if (!driver.available) {
    console.log(`No CUDA device: ${driver.problem}.`);
    console.log('Device.default() runs on the host device (the CPU reference backend) here.');
    return;
  }
  if (devices.length === 0) console.log('No CUDA device: the driver sees none. Device.default() runs on the host device (the CPU reference backend) here.');
  for (const d of devices) {
    const p = d.properties;
    const features = [
      p.cooperativeLaunch && 'cooperative launch',
      p.clusterLaunch && 'cluster launch',
      p.memoryPools && 'memory pools',
    ].filter(Boolean);
    console.log(
      `[${d.ordinal}] ${p.name}: compute ${p.major}.${p.minor} (${d.arch}), ${p.multiprocessors} multiprocessors, ` +
        `${bytes(p.totalMemory)}, ${features.join(', ')}`,
    );
  }
}
