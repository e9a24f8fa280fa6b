// What the README says the prebuilt addon needs of the system (glibc, GCC's libstdc++), read off
// the built addon that `npm pack` ships (build/Release/rxcuda.node, stripped into prebuilds/): the
// highest symbol versions it references may be no newer than the README says.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const addon = `${root}build/Release/rxcuda.node`;
const readme = readFileSync(`${root}README.md`, 'utf8');

/** `2.34` < `2.4`? No: versions compared part by part, as numbers. */
function compare(a: string, b: string): number {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** The highest version of each symbol-version family (GLIBC, GLIBCXX, CXXABI) the addon references. */
function highestReferenced(): Record<string, string> {
  const dump = spawnSync('objdump', ['-T', addon], { encoding: 'utf8' });
  if (dump.error || dump.status !== 0) throw new Error(`objdump -T ${addon} failed (objdump is binutils', beside the C++ compiler): ${dump.error?.message ?? dump.stderr}`);
  const highest: Record<string, string> = {};
  for (const [, family, version] of dump.stdout.matchAll(/\b(GLIBC|GLIBCXX|CXXABI)_(\d+(?:\.\d+)*)\b/g)) {
    if (highest[family!] === undefined || compare(version!, highest[family!]!) > 0) highest[family!] = version!;
  }
  return highest;
}

describe('the README\'s install facts', () => {
  const stated = {
    GLIBC: /needs \*\*glibc (\d+\.\d+)\*\* or newer \(`GLIBC_\1`\)/.exec(readme)?.[1],
    GLIBCXX: /`GLIBCXX_(\d+\.\d+\.\d+)`/.exec(readme)?.[1],
    CXXABI: /`CXXABI_(\d+\.\d+\.\d+)`/.exec(readme)?.[1],
  };

  it('states the glibc, GLIBCXX and CXXABI versions the prebuilt addon needs', () => {
    expect(stated).toEqual({ GLIBC: expect.any(String), GLIBCXX: expect.any(String), CXXABI: expect.any(String) });
  });

  it('states versions no older than the built addon references', () => {
    const highest = highestReferenced();
    expect(Object.keys(highest).sort()).toEqual(['CXXABI', 'GLIBC', 'GLIBCXX']);
    for (const family of ['GLIBC', 'GLIBCXX', 'CXXABI'] as const) {
      expect(compare(highest[family]!, stated[family]!), `${family}_${highest[family]} referenced, the README says ${stated[family]}`).toBeLessThanOrEqual(0);
    }
  });
});
