// The demo's progress bar: drawn on stderr only when stderr is a terminal, with a smoothed estimate
// of the time left, and taken down (cursor shown, line wrap on) however the run ends: SIGTERM
// restores the terminal before the process ends by it; Ctrl-C is the demo's (see interrupt.ts).
import { Presets, SingleBar } from 'cli-progress';
import { formatTimeLeft, TimeLeft } from './time-left.js';

/** A progress bar over `total` steps; `stop()` (or `using`) restores the terminal and is safe to repeat. */
export interface Progress extends Disposable {
  increment(): void;
  stop(): void;
}

const NONE: Progress = { increment() {}, stop() {}, [Symbol.dispose]() {} };

/** How often the time left is redrawn between steps, in milliseconds. */
const TICK_MS = 250;

/**
 * A progress bar on `stream` (stderr by default), or one that draws nothing where the stream is
 * not a terminal or `enabled` is false. While it is drawn, SIGTERM first restores the terminal,
 * then ends the process as the signal would have.
 */
export function progress(total: number, unit: string, enabled: boolean, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!enabled || stream.isTTY !== true) return NONE;
  const bar = new SingleBar({ stream, format: `  {bar} {value}/{total} ${unit} | {left} left`, hideCursor: true, linewrap: false }, Presets.shades_classic);
  const left = new TimeLeft(total);
  let done = 0;
  let stopped = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    stop();
    // Without our listener the default action applies: the process ends by that signal.
    process.kill(process.pid, signal);
  };
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    clearInterval(tick);
    process.removeListener('SIGTERM', onSignal);
    bar.stop();
  };
  process.once('SIGTERM', onSignal);
  bar.start(total, 0, { left: formatTimeLeft(undefined) });
  // The estimate counts down between steps too; the timer does not keep the process alive.
  const tick = setInterval(() => bar.update({ left: formatTimeLeft(left.estimate()) }), TICK_MS).unref();
  return {
    increment: () => {
      left.update(++done);
      bar.increment(1, { left: formatTimeLeft(left.estimate()) });
    },
    stop,
    [Symbol.dispose]: stop,
  };
}
