// What a stream is made with, and the events it emits.
import { rangeError, typeError } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import type { HostStepContext } from '../queue/failure-route.js';

/** Events a stream emits. Use RxJS's `fromEvent(stream, 'idle')` to observe them as streams. */
export interface StreamEvents {
  /**
   * A host step or notification threw or rejected, or queued device work failed when it went to
   * the driver; the stream went on.
   */
  error: (error: unknown, context: HostStepContext) => void;
  /**
   * All work enqueued so far has finished, as seen at a completion point (a `synchronized()`,
   * `onDone` or pipeline value) with nothing enqueued after it.
   */
  idle: () => void;
}

/** Options for {@link Device.createStream}. */
export interface StreamOptions {
  /**
   * Scheduling priority; lower numbers are more urgent. An integer that fits an int; CUDA clamps
   * it to the device's range (typically -5..0), and {@link Stream.priority} tells the one used.
   * @default 0
   */
  readonly priority?: number;
  /**
   * Whether the stream skips implicit synchronization with the legacy default stream.
   * @default false
   */
  readonly nonBlocking?: boolean;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** `options` checked, with their defaults. */
export function readStreamOptions(options: StreamOptions): Required<StreamOptions> {
  checkOptions('options', options, ['nonBlocking', 'priority']);
  const { priority = 0, nonBlocking = false } = options;
  if (typeof priority !== 'number' || !Number.isInteger(priority)) typeError('priority', 'an integer', priority);
  // The driver takes an int: a wider number would wrap around (2^31 becoming the most urgent).
  if (priority < INT32_MIN || priority > INT32_MAX) rangeError('priority', `an integer in ${INT32_MIN}..${INT32_MAX}`, priority);
  if (typeof nonBlocking !== 'boolean') typeError('nonBlocking', 'a boolean', nonBlocking);
  return { priority, nonBlocking };
}
