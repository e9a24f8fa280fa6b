// `rxcuda info` as a user runs it: first what it found and which device Device.default() gives,
// then a line for each part; a missing library says in one line what to install or set, and
// where it was looked for only with --verbose.
import { describe, expect, it } from 'vitest';
import { Device, libraryInfo } from '../../src/index.js';
import { rxcuda } from '../support/cli.js';
import { packageVersion } from '../../src/cli/version.js';

const plain = rxcuda(['info']);
const verbose = rxcuda(['info', '--verbose']);
const lines = plain.stdout.split('\n');
const driver = Device.driverInfo();
const libraries = [
  ['NVRTC', driver.nvrtc.available, driver.nvrtc.path, ['/libnvrtc.so']],
  ['cuBLAS', libraryInfo().cublas.available, libraryInfo().cublas.path, libraryInfo().cublas.searched],
  ['cuFFT', libraryInfo().cufft.available, libraryInfo().cufft.path, libraryInfo().cufft.searched],
] as const;

describe('rxcuda info', () => {
  it('exits 0 with nothing on stderr', () => {
    expect([plain.status, plain.stderr, verbose.status, verbose.stderr]).toEqual([0, '', 0, '']);
  });

  it('says first which version runs on which Node, and which device Device.default() gives', () => {
    expect(lines[0]).toBe(`rxcuda ${packageVersion()} on Node.js ${process.version}`);
    const device = Device.default();
    expect(lines[1]).toBe(
      device.kind === 'host'
        ? 'found no CUDA device: Device.default() is the host device (the CPU reference backend)'
        : `found ${Device.count() === 1 ? 'a CUDA device' : `${Device.count()} CUDA devices`}: Device.default() is ${device} (${device.name}, ${device.arch})`,
    );
  });

  it('names what is missing before the details, and points to --verbose', () => {
    const missing = libraries.filter(([, available]) => !available).map(([name]) => name);
    if (missing.length === 0) expect(lines[2]).not.toMatch(/^missing: /);
    else expect(lines[2]).toMatch(new RegExp(`^missing: ${missing.join(', ')}(, a CUDA compiler)? \\(below: what to install or set; --verbose: where each was looked for\\)$`));
  });

  for (const [name, available, path, searched] of libraries) {
    it(`says in one line where ${name} was found, or what to install or set`, () => {
      const line = lines.find((l) => l.startsWith(`${name}: `));
      if (available) expect(line).toMatch(new RegExp(`^${name}: \\S+ \\(${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)$`));
      else if (path === '') expect(line).toMatch(new RegExp(`^${name}: not found: install the CUDA toolkit's ${name}, or set CUDA_PATH to a toolkit that has it \\(.+\\)$`));
      else expect(line).toMatch(new RegExp(`^${name}: not usable: `));
    });

    it.skipIf(available)(`says where ${name} was looked for only with --verbose`, () => {
      const looked = searched[0]!.replace(/ \(on the loader path\)$/, '');
      expect(plain.stdout).not.toContain(looked);
      const at = verbose.stdout.split('\n').findIndex((l) => l.startsWith(`${name}: `));
      expect(verbose.stdout.split('\n')[at + 1]).toMatch(/^ {2}\S/);
      expect(verbose.stdout.split('\n')[at + 1]).toContain(looked);
    });
  }

  it('says the same in --verbose, with the places looked in as indented lines', () => {
    expect(verbose.stdout.split('\n').filter((l) => !l.startsWith('  ')).join('\n')).toBe(plain.stdout.replace('; --verbose: where each was looked for', ''));
  });

  it('gives Device.default() in --json too', () => {
    const json = JSON.parse(rxcuda(['info', '--json']).stdout) as { default: string; libraries: { cublas: { searched: string[] } } };
    expect(json.default).toBe(String(Device.default()));
    expect(json.libraries.cublas.searched).toEqual(libraryInfo().cublas.searched);
  });
});
