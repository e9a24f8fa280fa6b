#!/usr/bin/env node
// The rxcuda command: `rxcuda info` lists CUDA devices, or says precisely why there are none.
import { Command } from 'commander';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Device } from '../core/device.js';
import { demo } from './demo.js';

function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}

function version(cudaVersion: number): string {
  return `${Math.floor(cudaVersion / 1000)}.${(cudaVersion % 1000) / 10}`;
}

/** Prints the driver, NVRTC and every device; exits 0 whether or not a device is usable. */
function info(options: { json?: boolean }): void {
  const driver = Device.driverInfo();
  const devices = driver.available ? Device.all() : [];
  if (options.json) {
    const list = devices.map((d) => ({ ordinal: d.ordinal, arch: d.arch, ...d.properties }));
    console.log(JSON.stringify({ driver, devices: list }, null, 2));
    return;
  }
  console.log(`rxcuda on Node.js ${process.version}`);
  console.log(driver.version ? `driver: CUDA ${version(driver.version)}` : 'driver: none');
  const nv = driver.nvrtc;
  console.log(nv.available ? `NVRTC: ${nv.version} (${nv.path})` : `NVRTC: not available: ${nv.problem}`);
  if (!driver.available) {
    console.log(`No CUDA device: ${driver.problem}.`);
    return;
  }
  if (devices.length === 0) console.log('No CUDA device: the driver sees none.');
  for (const d of devices) {
    const p = d.properties;
    const features = [
      p.cooperativeLaunch && 'cooperative launch',
      p.clusterLaunch && 'cluster launch',
      p.memoryPools && 'memory pools',
    ].filter(Boolean);
    console.log(
      `[${d.ordinal}] ${p.name}: compute ${p.major}.${p.minor} (${d.arch}), ${p.multiprocessors} multiprocessors, ` +
        `${gib(p.totalMemory)}, ${features.join(', ')}`,
    );
  }
}

const program = new Command('rxcuda').description('Reactive stream scheduling for NVIDIA GPUs');
program.command('info').description('list CUDA devices, driver and NVRTC versions').option('--json', 'print JSON').action(info);
program
  .command('demo')
  .description('run a frame pipeline on the default device and say what happened')
  .option('--frames <n>', 'frames to process', (v) => Number.parseInt(v, 10), 500)
  .option('--pixels <n>', '32-bit pixels per frame', (v) => Number.parseInt(v, 10), 1 << 18)
  .option('--lanes <n>', 'streams to spread frames over', (v) => Number.parseInt(v, 10), 3)
  .option('--trace <path>', 'where to write the Chrome trace', join(tmpdir(), 'rxcuda-demo-trace.json'))
  .option('--no-progress', 'no progress bar')
  .action(async (options) => {
    await demo({ ...options, progress: options.progress && process.stdout.isTTY === true });
  });
program
  .command('bench')
  .description('run the benchmarks against their native baselines (from a checkout of rxcuda, on a GPU)')
  .action(async () => {
    const runner = join(dirname(fileURLToPath(import.meta.url)), '../../../bench/run.mjs');
    if (!existsSync(runner)) {
      console.log('The benchmarks and their native baselines come with a checkout of rxcuda, not with the package: run `npm run bench` there.');
      return;
    }
    await import(runner);
  });
await program.parseAsync();
