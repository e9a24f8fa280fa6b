// Finds and loads the native addon through pkg-prebuilds: a clone's own build (build/Debug, then
// build/Release), else the prebuilt addon for this platform (prebuilds/rxcuda-linux-x64/…); or
// the one file RXCUDA_ADDON names. A failure is one error that says what to do where it happened.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import loadBinding from 'pkg-prebuilds';

const require = createRequire(import.meta.url);

/** The folder of rxcuda's package.json: above src/core in a clone, above dist/src/core in both. */
function packageRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'binding-options.cjs'))) return dir;
    if (dirname(dir) === dir) throw new Error(`rxcuda's binding-options.cjs was not found above ${fileURLToPath(import.meta.url)}`);
  }
}

/** Where the page on install and loading problems is. */
const TROUBLESHOOTING = 'https://github.com/rxcuda/rxcuda/blob/main/docs/troubleshooting.md';

/**
 * What to do, said for a clone (build it) or for an installed package (reinstall), or for an addon
 * that the system's C library or C++ runtime is too old for (`why`, the loader's words).
 */
function advice(root: string, options: { napi_versions: number[] }, why: string): string {
  const target = `${process.platform}-${process.arch}, Node-API ${options.napi_versions.join(' or ')}`;
  const installed = root.split(sep).includes('node_modules');
  if (/\b(GLIBC|GLIBCXX|CXXABI)_[\d.]+/.test(why)) {
    return (
      'The addon needs a newer C library or C++ runtime than this system has (the prebuilt addon: glibc 2.34 and ' +
      `GCC 12's libstdc++). Compile it here instead: ${installed ? '`npm rebuild rxcuda --build-from-source`' : '`npm run build:native`'} ` +
      `(cmake ≥ 3.18 and a C++20 compiler, no CUDA toolkit). See ${TROUBLESHOOTING}.`
    );
  }
  if (installed) {
    return (
      `This installed rxcuda has no prebuilt addon that fits (${target}) and none was compiled at install ` +
      '(its install script did not run: npm --ignore-scripts, or an npm whose `allowScripts` policy skipped it; ' +
      'or cmake failed). Allow its script (`npm install-scripts approve rxcuda` on npm 11) and rebuild it ' +
      `(\`npm rebuild rxcuda\`); compiling needs cmake ≥ 3.18 and a C++20 compiler, no CUDA toolkit. See ${TROUBLESHOOTING}.`
    );
  }
  return `Build it with \`npm run build:native\` (${target}; cmake ≥ 3.18 and a C++20 compiler, no CUDA toolkit).`;
}

/**
 * Loads the addon and runs `init` on it (a stale build fails there); throws one `Error` that says
 * what was tried and what to do.
 */
export function loadAddon<T>(init: (addon: T) => void): T {
  const root = packageRoot();
  const options = require(join(root, 'binding-options.cjs')) as { name: string; napi_versions: number[] };
  const override = process.env.RXCUDA_ADDON;
  try {
    // RXCUDA_ADDON names one build to use instead (the sanitizer build, say), and nothing else.
    const addon = override ? (require(override) as T) : loadBinding<T>(root, options);
    init(addon);
    return addon;
  } catch (error) {
    const why = override ? `RXCUDA_ADDON=${override}: ${(error as Error).message}` : (error as Error).message;
    const what = override ? 'Unset RXCUDA_ADDON or point it at a built rxcuda.node.' : advice(root, options, String((error as Error).message));
    throw new Error(`The rxcuda native addon could not be loaded. ${what}\n${why}`);
  }
}
