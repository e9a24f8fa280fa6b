// The error of a JetStream worker that cannot go on: its `reason` says which, its message what to do.
import { RxcudaError } from '../../core/index.js';

/**
 * Why a JetStream worker stopped or could not start:
 * - `server-unreachable`: no NATS server answered at the addresses given;
 * - `no-jetstream`: the server answered but has JetStream off (start it with `-js`);
 * - `stream-not-found`, `consumer-not-found`: the stream or the durable consumer does not exist
 *   (at start, or it was deleted while the worker ran);
 * - `not-a-pull-consumer`, `ack-policy`: the consumer is a push consumer, or does not ask for
 *   explicit acks, which a worker needs;
 * - `dead-letter-failed`: a message that had used up its deliveries could not be published to the
 *   dead-letter subject (no stream takes that subject, say), so it was left unacked;
 * - `connection-closed`: the connection closed under the worker (reconnects given up).
 *
 * Two reasons are no stop, but the `error` of a dead letter (its outcome, and its `Rxcuda-Error`
 * header), after which the worker goes on:
 * - `payload-too-large`: a message is larger than the worker's frames (`frameBytes`);
 * - `max-deliveries`: a message used up the consumer's `max_deliver` without being settled (the
 *   worker that held it last died, stopped or lost the server), as the server's advisory said.
 */
export type JetStreamErrorReason =
  | 'server-unreachable'
  | 'no-jetstream'
  | 'stream-not-found'
  | 'consumer-not-found'
  | 'not-a-pull-consumer'
  | 'ack-policy'
  | 'payload-too-large'
  | 'dead-letter-failed'
  | 'connection-closed'
  | 'max-deliveries';

/**
 * A JetStream worker could not start, or stopped because it could not go on; `reason` says why
 * and `cause` is the NATS client's own error, where there is one. No message was acked for it:
 * what the worker had pulled and not finished is back on the consumer (nak'ed, or redelivered
 * after `ack_wait`). It is also the error of a dead letter the worker itself decided on
 * (`payload-too-large`, `max-deliveries`). `code` is undefined: the class and `reason` say it all.
 */
export class JetStreamError extends RxcudaError {
  /** The class's name, `JetStreamError`. */
  override readonly name = 'JetStreamError';
  declare readonly code: undefined;
  /** Why the worker stopped. */
  readonly reason: JetStreamErrorReason;

  /**
   * @param reason why the worker stopped.
   * @param message what happened, and what to do.
   * @param cause the NATS client's error, if any.
   */
  constructor(reason: JetStreamErrorReason, message: string, cause?: unknown) {
    super(message, undefined, cause === undefined ? undefined : { cause });
    this.reason = reason;
  }
}

/** The NATS client's words for a missing stream or consumer, and for a closed connection. */
export function reasonOf(error: unknown): JetStreamErrorReason | undefined {
  const text = String((error as Error | undefined)?.message ?? error).toLowerCase();
  const code = (error as { code?: unknown; api_error?: { err_code?: number } } | undefined)?.api_error?.err_code;
  if (code === 10059 || text.includes('stream not found')) return 'stream-not-found';
  if (code === 10014 || text.includes('consumer not found') || text.includes('consumer deleted')) return 'consumer-not-found';
  if (text.includes('connection closed') || (error as { name?: string } | undefined)?.name === 'ClosedConnectionError') return 'connection-closed';
  return undefined;
}

/** The error of a message whose payload is larger than the worker's frames: the error of its dead letter. */
export function payloadTooLarge(stream: string, sequence: number, bytes: number, frameBytes: number): JetStreamError {
  return new JetStreamError(
    'payload-too-large',
    `Message ${stream} #${sequence} has ${bytes} bytes, more than the worker's frames of ${frameBytes} (\`frameBytes\`): dead-lettered; give the worker larger frames (and the server a larger max_payload), and republish it from the dead-letter stream`,
  );
}
