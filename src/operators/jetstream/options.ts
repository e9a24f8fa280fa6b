// The options of fromJetStream, checked, with their defaults.
import type { Consumer } from '@nats-io/jetstream';
import type { Observable } from 'rxjs';
import { LanePool, type Work } from '../index.js';
import { checkNumber, checkOptions, checkSubject, typeError } from './args.js';
import { JetStreamCounts } from './counts.js';
import type { JetStreamMessage } from './message.js';
import type { DeadLetterOptions } from './settle.js';

/** The server's default payload limit (`max_payload`), 1 MiB, which is also the default frame. */
export const DEFAULT_FRAME_BYTES = 1024 * 1024;

/** Options for {@link fromJetStream}. */
export interface FromJetStreamOptions<B = {}, R = {}> {
  /**
   * The GPU pipeline of one message: the operators its {@link Work} goes through, from
   * `upload` to the sink. It must emit a value only once the value's device work is done (end
   * it with `download`, `completed` or {@link toJetStream} after one of them): the message is
   * acked when the Observable it returns completes without error. Each message goes through a
   * subscription of its own, so that one value's failure fails that message alone.
   */
  readonly process: (messages: Observable<Work<JetStreamMessage>>) => Observable<Work<JetStreamMessage, B, R>>;
  /** Where a message goes after its last delivery failed (see {@link maxDeliver}). */
  readonly deadLetter: DeadLetterOptions;
  /**
   * Bytes of each pinned frame that payloads are decoded into; a message with a larger payload
   * stops the worker (`JetStreamError`, reason `payload-too-large`) and is given back, unacked.
   * The frames are the pool's pinned buffers: `pool.stats` counts them, and they stay in its
   * free lists for the next message, and the next worker on the pool, until it closes.
   * @default 1 MiB (the server's default `max_payload`)
   */
  readonly frameBytes?: number;
  /**
   * Writes a payload into a frame and returns the bytes written (undefined: the payload's
   * length). A throw fails the message, as a failing kernel does.
   * @default a copy of the payload (the one copy there has to be: from the socket's buffer into pinned memory)
   */
  readonly decode?: (payload: Uint8Array, frame: Uint8Array) => number | void;
  /**
   * Milliseconds after which a failed message is delivered again.
   * @default 1000
   */
  readonly nakDelay?: number;
  /**
   * Deliveries after which a failing message is dead-lettered: at most the consumer's own
   * `max_deliver` (after which the server delivers it no more).
   * @default the consumer's `max_deliver`, or 5 where it has none
   */
  readonly maxDeliver?: number;
  /**
   * Milliseconds after which a message still held tells the server it is being worked on (an
   * in-progress ack, which restarts its `ack_wait`).
   * @default a third of the consumer's `ack_wait`
   */
  readonly progressEvery?: number;
  /**
   * Milliseconds a pull request waits on an empty stream; on a stop the worker waits for none.
   * The server sends a heartbeat on a waiting request every fifth of it (0.5 to 5 s): a request
   * it has gone silent on for 2.5 heartbeats (held by a node that died, or lost in a reconnect)
   * is sent again, so that a worker goes on as soon as the cluster serves the consumer again.
   * @default 5000
   */
  readonly expires?: number;
  /**
   * Stops the worker once no message has arrived for this many milliseconds, none is held, and
   * the server says that none waits for the consumer (`num_pending` 0). A quiet spell while the
   * server does not answer, or while messages wait that go to other workers, does not count:
   * the idle clock starts again. Messages other workers hold are not waited for: give a batch
   * job's workers an `idle` longer than `ack_wait`, so that those of a worker that died come back
   * to the others first.
   */
  readonly idle?: number;
  /** Stops the worker when aborted. */
  readonly signal?: AbortSignal;
  /** Process signals that stop the worker, e.g. `['SIGTERM', 'SIGINT']` (listened to while it runs). */
  readonly stopOn?: readonly NodeJS.Signals[];
  /** A connection to drain once the worker has stopped (the worker's own), so that the process can exit. */
  readonly drain?: { drain(): Promise<void> };
  /** Counters to count into (pulled, in flight, acked, nak'ed, redelivered, dead-lettered). */
  readonly counts?: JetStreamCounts;
}

/** The options checked, with their defaults. */
/** The options {@link FromJetStreamOptions} declares. */
const FROM_JETSTREAM_OPTIONS: readonly string[] = [
  'counts', 'deadLetter', 'decode', 'drain', 'expires', 'frameBytes', 'idle', 'maxDeliver', 'nakDelay', 'process', 'progressEvery', 'signal', 'stopOn',
];

export interface CheckedOptions extends Required<Omit<FromJetStreamOptions<any, any>, 'decode' | 'maxDeliver' | 'progressEvery' | 'idle' | 'signal' | 'drain'>> {
  readonly decode: FromJetStreamOptions['decode'];
  readonly maxDeliver: number | undefined;
  readonly progressEvery: number | undefined;
  readonly idle: number | undefined;
  readonly signal: AbortSignal | undefined;
  readonly drain: FromJetStreamOptions['drain'];
}

export function checkWorkerOptions(consumer: unknown, pool: unknown, options: FromJetStreamOptions<any, any>): CheckedOptions {
  const fetchable = consumer as Partial<Consumer> | null;
  if (typeof fetchable?.fetch !== 'function' || typeof fetchable.info !== 'function') typeError('consumer', 'a pull Consumer (`js.consumers.get(stream, name)`)', consumer);
  if (!(pool instanceof LanePool)) typeError('pool', 'a LanePool', pool);
  if (pool.closed) typeError('pool', 'an open LanePool', 'a closed LanePool');
  checkOptions('options', options, FROM_JETSTREAM_OPTIONS);
  if (options === undefined) typeError('options', 'an options object with `process` and `deadLetter`', options);
  if (typeof options.process !== 'function') typeError('process', 'a function from an Observable of Work to an Observable of Work', options.process);
  checkOptions('deadLetter', options.deadLetter, ['jetstream', 'subject'], 'deadLetter.');
  if (typeof options.deadLetter?.jetstream?.publish !== 'function') typeError('deadLetter.jetstream', 'a JetStreamClient', options.deadLetter?.jetstream);
  checkSubject('deadLetter.subject', options.deadLetter.subject);
  if (options.decode !== undefined && typeof options.decode !== 'function') typeError('decode', 'a function', options.decode);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) typeError('signal', 'an AbortSignal', options.signal);
  if (options.stopOn !== undefined && (!Array.isArray(options.stopOn) || options.stopOn.some((s) => typeof s !== 'string' || !s.startsWith('SIG'))))
    typeError('stopOn', 'an array of signal names such as SIGTERM', options.stopOn);
  if (options.drain !== undefined && typeof options.drain?.drain !== 'function') typeError('drain', 'a NatsConnection', options.drain);
  if (options.counts !== undefined && !(options.counts instanceof JetStreamCounts)) typeError('counts', 'a JetStreamCounts', options.counts);
  return {
    process: options.process,
    deadLetter: options.deadLetter,
    frameBytes: checkNumber('frameBytes', options.frameBytes, DEFAULT_FRAME_BYTES, 1),
    decode: options.decode,
    nakDelay: checkNumber('nakDelay', options.nakDelay, 1000, 0),
    maxDeliver: options.maxDeliver === undefined ? undefined : checkNumber('maxDeliver', options.maxDeliver, 0, 1),
    progressEvery: options.progressEvery === undefined ? undefined : checkNumber('progressEvery', options.progressEvery, 0, 1, Infinity, false),
    expires: checkNumber('expires', options.expires, 5000, 1000),
    idle: options.idle === undefined ? undefined : checkNumber('idle', options.idle, 0, 1, Infinity, false),
    signal: options.signal,
    stopOn: options.stopOn ?? [],
    drain: options.drain,
    counts: options.counts ?? new JetStreamCounts(),
  };
}

