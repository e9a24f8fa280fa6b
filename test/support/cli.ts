// Runs the built command line as a user would: `node dist/src/cli/main.js …`.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built command line's entry point. */
export const cliPath = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

/** What a run of the command line left: its exit code and both streams. */
export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `rxcuda …args` to the end, in `cwd` (default: here), with no terminal. */
export function rxcuda(args: readonly string[], cwd?: string): CliRun {
  const run = spawnSync(process.execPath, [cliPath, ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Whether text holds a JavaScript stack trace (`    at f (file:1:2)`). */
export function hasStackTrace(text: string): boolean {
  return /^\s+at .+(:\d+:\d+\)?|\(native\))$/m.test(text);
}
