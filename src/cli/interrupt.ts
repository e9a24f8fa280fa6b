// Ctrl-C for a command that can stop cleanly: the first SIGINT asks the run to wind down (it then
// ends by itself and says what it did), a second one ends the process at once. Either way the exit
// code is 130, a shell's code for a command ended by SIGINT.

/** Exit code of a run stopped by Ctrl-C (128 + SIGINT's number). */
export const INTERRUPTED = 130;

/** What {@link onInterrupt} gives: whether Ctrl-C came, and the way to stop listening. */
export interface Interrupt {
  /** Whether SIGINT came since {@link onInterrupt}. */
  readonly interrupted: boolean;
  /** Stops listening: SIGINT has its default action again. Safe to repeat. */
  dispose(): void;
}

/**
 * Listens for SIGINT: the first calls `stop`, which asks the run to wind down; a second calls
 * `abandon` (to restore the terminal, say) and ends the process at once with exit code 130.
 *
 * @example
 * using interrupt = onInterrupt(() => (stopping = true), () => bar.stop());
 */
export function onInterrupt(stop: () => void, abandon: () => void): Interrupt & Disposable {
  let count = 0;
  const listener = (): void => {
    count++;
    if (count === 1) return stop();
    abandon();
    process.exit(INTERRUPTED);
  };
  process.on('SIGINT', listener);
  const dispose = (): void => void process.removeListener('SIGINT', listener);
  return {
    get interrupted() {
      return count > 0;
    },
    dispose,
    [Symbol.dispose]: dispose,
  };
}
