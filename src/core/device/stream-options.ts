// What a stream is made with, and the events it emits.
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
