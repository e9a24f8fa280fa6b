// The version the command line reports: the one in rxcuda's own package.json.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** rxcuda's version, read from the package.json above this file (in src/ or dist/src/). */
export function packageVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const json = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (json.name === 'rxcuda' && json.version) return json.version;
    }
    if (dirname(dir) === dir) throw new Error(`rxcuda's package.json was not found above ${fileURLToPath(import.meta.url)}`);
  }
}
