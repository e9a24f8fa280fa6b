// `rxcuda bench`: the benchmarks of a clone of rxcuda, which need a CUDA device and the native
// baselines built beside the addon; neither comes with the installed package.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Device } from '../index.js';

/** Why the benchmarks cannot run here, or undefined when they can; `runner` is bench/run.mjs. */
export function benchProblem(runner: string): string | undefined {
  if (!existsSync(runner)) {
    return 'rxcuda bench runs the benchmarks of a clone of rxcuda; this installed package has no bench/ folder. Clone the repository and run `npm ci && npm run bench` there, on a machine with a CUDA device.';
  }
  const driver = Device.driverInfo();
  if (!driver.available) return `rxcuda bench needs a CUDA device: ${driver.problem}.`;
  if (driver.deviceCount === 0) return 'rxcuda bench needs a CUDA device: the driver sees none.';
  const baselines = join(dirname(runner), '..', 'build', 'Release', 'rxcuda_bench.node');
  if (!existsSync(baselines)) return `rxcuda bench measures rxcuda against native baselines, which are not built (${baselines}): run \`npm run bench\`, which builds them first, or \`node scripts/build-extras.mjs bench\`.`;
  return undefined;
}

/** bench/run.mjs of the clone this file was built in (dist/src/cli or src/cli). */
export function benchRunner(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const root = here.endsWith(join('dist', 'src', 'cli')) ? join(here, '../../..') : join(here, '../..');
  return join(root, 'bench', 'run.mjs');
}
