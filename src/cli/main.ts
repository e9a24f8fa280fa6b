#!/usr/bin/env node
// The rxcuda command: `info`, `demo` and `bench`. A bad option or argument is one line on stderr
// and exit code 2; a run that fails is its message and exit code 1; neither prints a stack trace.
// The commands load the addon when they run, so that `--version` and `--help` work without it.
import { Command, CommanderError, Option } from 'commander';
import { pathToFileURL } from 'node:url';
import { INTERRUPTED } from './interrupt.js';
import { integer } from './options.js';
import { packageVersion } from './version.js';
import { unwritable } from './writable.js';

/** Exit code for a command line that cannot be used as given. */
const USAGE = 2;

/** Where `rxcuda demo --trace` writes the trace when given no path. */
const DEFAULT_TRACE = 'rxcuda-demo-trace.json';

const program = new Command('rxcuda')
  .description('Reactive stream scheduling for NVIDIA GPUs')
  .version(packageVersion(), '-V, --version', 'print the version of rxcuda')
  // Settings before the subcommands: they inherit them.
  .exitOverride()
  .showSuggestionAfterError();

program
  .command('info')
  .description('say which device Device.default() gives, and what was found: the driver, CUDA devices, NVRTC, cuBLAS, cuFFT')
  .option('--json', 'print JSON')
  .option('--verbose', 'say where each missing library was looked for')
  .action(async (options: { json?: boolean; verbose?: boolean }) => (await import('./info.js')).info(options));

program
  .command('demo')
  .description('run a frame pipeline on the default device (a GPU, else the host device) and say what happened')
  .addOption(new Option('--frames <n>', 'frames to process').argParser(integer(1, 100_000)).default(500))
  .addOption(new Option('--pixels <n>', '32-bit pixels per frame').argParser(integer(1, 1 << 26)).default(1 << 18))
  .addOption(new Option('--lanes <n>', 'streams to spread frames over').argParser(integer(1, 64)).default(3))
  .addOption(new Option('--road <road>', 'how frames travel: pinned frames filled and read in place, or plain (pageable) arrays').choices(['pinned', 'pageable']).default('pinned'))
  .option('--trace [path]', `write a Chrome trace of the lanes to path (default: ${DEFAULT_TRACE})`)
  .option('--report <path>', 'where to write an HTML page of the lanes, the stages and the roads (self-contained)')
  .option('--no-progress', 'no progress bar (there is none where stderr is not a terminal)')
  .action(async (options: { frames: number; pixels: number; lanes: number; road: 'pinned' | 'pageable'; trace?: string | true; report?: string; progress: boolean }, command: Command) => {
    const trace = options.trace === true ? DEFAULT_TRACE : options.trace;
    for (const [flag, path] of [['--trace [path]', trace], ['--report <path>', options.report]] as const) {
      const problem = path === undefined ? undefined : unwritable(path);
      if (problem) command.error(`error: option '${flag}' cannot be written: ${problem}.`, { exitCode: USAGE, code: `rxcuda.${flag.slice(2, flag.indexOf(' '))}` });
    }
    const { interrupted } = await (await import('./demo.js')).demo({ ...options, trace });
    if (interrupted) process.exitCode = INTERRUPTED;
  });

program
  .command('bench')
  .description('run the benchmarks against their native baselines (in a clone of rxcuda, on a GPU)')
  .action(async () => {
    const { benchProblem, benchRunner } = await import('./bench.js');
    const runner = benchRunner();
    const problem = benchProblem(runner);
    if (problem) throw new Error(problem);
    await import(pathToFileURL(runner).href);
  });

try {
  await program.parseAsync();
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander has printed its message (or the help, or the version) already.
    process.exitCode = error.exitCode === 0 ? 0 : USAGE;
  } else {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
