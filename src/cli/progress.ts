// The demo's progress bar: drawn on stderr only when stderr is a terminal, and taken down (cursor
// shown, line wrap on) however the run ends, Ctrl-C included.
import { Presets, SingleBar } from 'cli-progress';

/** A progress bar over `total` steps; `stop()` restores the terminal and is safe to repeat. */
export interface Progress {
  increment(): void;
  stop(): void;
}

const NONE: Progress = { increment() {}, stop() {} };

/**
 * A progress bar on `stream` (stderr by default), or one that draws nothing where the stream is
 * not a terminal or `enabled` is false. While it is drawn, SIGINT and SIGTERM first restore the
 * terminal, then end the process as the signal would have.
 */
export function progress(total: number, unit: string, enabled: boolean, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!enabled || stream.isTTY !== true) return NONE;
  const bar = new SingleBar({ stream, format: `  {bar} {value}/{total} ${unit} | {eta_formatted} left`, hideCursor: true, linewrap: false }, Presets.shades_classic);
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const onSignal = (signal: NodeJS.Signals): void => {
    stop();
    // Without our listener the default action applies: the process ends by that signal.
    process.kill(process.pid, signal);
  };
  const stop = (): void => {
    for (const signal of signals) process.removeListener(signal, onSignal);
    bar.stop();
  };
  for (const signal of signals) process.once(signal, onSignal);
  bar.start(total, 0);
  return { increment: () => bar.increment(), stop };
}
