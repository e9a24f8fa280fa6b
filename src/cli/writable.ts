// Checks, before a long run, that a file can be written where the user asked, so that the run's
// results are not lost to a bad path at the end.
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Why `path` cannot be written as a file, or undefined when it can: its folder exists and is
 * writable, and the path is not a folder nor a read-only file.
 */
export function unwritable(path: string): string | undefined {
  const absolute = resolve(path);
  const folder = dirname(absolute);
  const existing = statOrUndefined(absolute);
  if (existing?.isDirectory()) return `${path} is a folder`;
  if (existing) return canWrite(absolute) ? undefined : `${path} is not writable`;
  const parent = statOrUndefined(folder);
  if (!parent) return `its folder ${folder} does not exist`;
  if (!parent.isDirectory()) return `${folder} is not a folder`;
  return canWrite(folder) ? undefined : `its folder ${folder} is not writable`;
}

function statOrUndefined(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function canWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
