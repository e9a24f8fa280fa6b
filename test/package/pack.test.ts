// The package as users get it (slow: packs and installs, about half a minute): `npm pack`, the
// tarball installed into a fresh project with --ignore-scripts (so nothing is compiled), then
// imported there with its prebuilt addon, its command run, and a consumer program type-checked
// in strict mode against the shipped declarations.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  devDependencies: Record<string, string>;
};
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const prebuilt = join('prebuilds', `rxcuda-${process.platform}-${process.arch}`, 'node-napi-v8.node');

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', timeout: 110_000, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });
}

function files(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => relative(folder, join(e.parentPath, e.name)));
}

describe('the packed package (npm pack, installed with --ignore-scripts)', { timeout: 120_000 }, () => {
  let app: string;
  let installed: string;

  beforeAll(() => {
    app = mkdtempSync(join(tmpdir(), 'rxcuda-consumer-'));
    // Packing with scripts would rebuild dist/ under the other tests' feet: do what prepack does
    // (copy the built addon into prebuilds/), pack without scripts, and clean up as postpack does.
    try {
      npm(['run', 'build:prebuilt', '--silent'], root);
      const [packed] = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', app], root)) as { filename: string }[];
      writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
      npm(['install', '--ignore-scripts', '--prefer-offline', '--no-package-lock', join(app, packed!.filename), `rxjs@${manifest.devDependencies.rxjs}`, `@types/node@${manifest.devDependencies['@types/node']}`], app);
    } finally {
      rmSync(join(root, 'prebuilds'), { recursive: true, force: true });
    }
    installed = join(app, 'node_modules', 'rxcuda');
  }, 120_000);

  afterAll(() => rmSync(app, { recursive: true, force: true }));

  it('ships the prebuilt addon, the licence and no build folder', () => {
    expect(existsSync(join(installed, prebuilt))).toBe(true);
    expect(existsSync(join(installed, 'build'))).toBe(false);
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} the rxcuda authors\n/);
  });

  it('loads the prebuilt addon and runs a stream and a pipeline on the host device', () => {
    copyFileSync(join(root, 'test', 'package', 'consumer.ts'), join(app, 'consumer.ts'));
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023', 'ESNext.Disposable'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: true,
          types: ['node'],
          outDir: 'out',
        },
        files: ['consumer.ts'],
      }),
    );
    const compiled = spawnSync(process.execPath, [tsc, '-p', app], { cwd: app, encoding: 'utf8' });
    expect(compiled.stdout).toBe('');
    expect(compiled.status).toBe(0);
    const run = spawnSync(process.execPath, [join(app, 'out', 'consumer.js')], { cwd: app, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ kind: 'host', roundTrip: [1, 2, 3, 4], pipeline: [[1, 2, 3], [4, 5, 6]], spans: 4 });
  });

  it('has declarations that type-check on their own, with no @internal member left', () => {
    const declarations = files(join(installed, 'dist')).filter((f) => f.endsWith('.d.ts'));
    expect(declarations.length).toBeGreaterThan(10);
    for (const file of declarations) expect(readFileSync(join(installed, 'dist', file), 'utf8')).not.toContain('@internal');
    writeFileSync(join(app, 'all.ts'), `export * from 'rxcuda';\nexport * as internal from 'rxcuda/internal';\n`);
    const run = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--skipLibCheck', 'false', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--lib', 'ES2023,ESNext.Disposable', '--types', 'node', 'all.ts'], { cwd: app, encoding: 'utf8' });
    const errors = [...run.stdout.matchAll(/^node_modules\/rxcuda\/(\S+?)\(\d+,\d+\): error TS\d+: (.*)$/gm)].map((m) => `${m[1]}: ${m[2]}`);
    expect(errors).toEqual([]);
    expect(run.stdout.split('\n').filter((line) => line && !line.startsWith('node_modules/rxcuda/'))).toEqual([]);
  });

  it('has source maps whose sources are all shipped', () => {
    const maps = files(join(installed, 'dist')).filter((f) => f.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(10);
    const missing = maps.flatMap((map) => {
      const at = dirname(join(installed, 'dist', map));
      const { sources } = JSON.parse(readFileSync(join(installed, 'dist', map), 'utf8')) as { sources: string[] };
      return sources.map((s) => resolve(at, s)).filter((s) => !existsSync(s));
    });
    expect(missing).toEqual([]);
  });

  it('runs its command: --version, and bench says that the package has no benchmarks', () => {
    const bin = join(app, 'node_modules', '.bin', 'rxcuda');
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' })).toBe(`${manifest.version}\n`);
    const bench = spawnSync(bin, ['bench'], { encoding: 'utf8' });
    expect(bench.status).toBe(1);
    expect(bench.stderr).toMatch(/^error: rxcuda bench runs the benchmarks of a clone of rxcuda; this installed package has no bench\/ folder\./);
  });
});
