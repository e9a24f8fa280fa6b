// Waits for a stream's work: a Promise settled from the completion queue (or by the spinning
// watcher), and a query that never waits.
import { checkOptions } from '../base/options.js';
import { refusal } from '../base/thenable.js';
import { completionCommand } from '../queue/host-steps.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import { guardedWait } from '../queue/self-wait.js';
import type { Recorder } from './recorder.js';
import { checkSpin, type SpinningWaits } from './spin-wait.js';

/** See {@link Stream.synchronized}; `reached(mark)` tells the stream it got to command `mark`. */
export function synchronizedOn(lane: StreamEngine<Recorder>, spins: SpinningWaits, options: { readonly spin?: number }, reached: (mark: number) => void): Promise<void> {
  checkOptions('options', options, ['spin']);
  const { spin = 0 } = options;
  checkSpin('spin', spin);
  const refused = refusal(() => lane.checkOpen());
  if (refused) return refused;
  lane.recorder?.interrupt('synchronized (a wait for the stream)');
  return guardedWait(lane, 'stream.synchronized()', () => new Promise((resolve, reject) => {
    const mark = lane.given + 1;
    const settle = (status: number, error?: unknown) => {
      if (status !== 0) return reject(error ?? lane.statusError(status));
      resolve();
      reached(mark);
    };
    lane.run(spin > 0 ? spins.command(spin, settle) : completionCommand(lane, settle));
  }));
}

/** See {@link Stream.flushed}. */
export function flushedOn(lane: StreamEngine): Promise<void> {
  return refusal(() => lane.checkOpen()) ?? guardedWait(lane, 'stream.flushed()', () => lane.flushed());
}

/** See {@link Stream.query}. */
export function queryOn(lane: StreamEngine<Recorder>): boolean {
  lane.checkOpen();
  lane.recorder?.interrupt('A query of the stream');
  // Nothing given since a completion point that was reached: idle. (Asked then, the driver may
  // still count its callback for that point, which has told the main thread but not yet returned.)
  // Another library's stream may hold work of its own: only the driver knows.
  if (lane.given === lane.lastReached && !lane.foreign) return true;
  if (!lane.unqueued) return false;
  try {
    return lane.native.query();
  } catch (error) {
    lane.faults.fail(error);
  }
}
