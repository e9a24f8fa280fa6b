// The options of fromJetStream, checked against their bounds, with their defaults.
import type { Consumer } from '@nats-io/jetstream';
import type { Observable } from 'rxjs';
import { LanePool, type Work } from '../index.js';
import { checkNumber, checkOptions, checkSubject, typeError } from './args.js';
import { JetStreamCounts } from './counts.js';
import { elementsOf, isArray } from '../../core/base/errors.js';
import type { JetStreamMessage } from './message.js';
import type { DeadLetterOptions } from './dead-letter.js';

// The bounds of the numbers a user sizes a worker with, from what the server and Node take: each
// is a RangeError past them, instead of a value the server or a timer reads otherwise.

/** The largest `max_payload` nats-server takes (64 MiB): no message is larger, and no frame need be. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/**
 * The longest duration the server takes, in milliseconds: it reads durations (a pull's `expires`,
 * a nak's delay) as nanoseconds in an int64, and refuses, or reads as none, a longer one.
 */
export const MAX_DURATION_MS = Math.floor((2 ** 63 - 1) / 1e6);

/** The longest delay of a Node timer, in milliseconds (2^31 - 1): a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Where each bound comes from, as the RangeError past it says. */
export const BOUND = {
  frameBytes: "64 MiB, the largest max_payload nats-server takes",
  duration: 'the server reads it as nanoseconds in an int64',
  timer: "2^31 - 1, a Node timer's longest",
  count: 'a safe integer',
} as const;

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
  /**
   * Where a message goes after its last delivery failed (see {@link maxDeliver}), or when it is
   * larger than the frames, or when the server says it used up the consumer's `max_deliver`
   * unsettled (`deadLetter.connection`, or `drain`, hears that: one of them is needed).
   */
  readonly deadLetter: DeadLetterOptions;
  /**
   * Bytes of each pinned frame that payloads are decoded into, 1 to 64 MiB (the largest
   * `max_payload` nats-server takes); a message with a larger payload is dead-lettered (its error
   * a `JetStreamError`, reason `payload-too-large`), and the worker goes on.
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
   * Milliseconds after which a failed message is delivered again: an integer up to
   * 9 223 372 036 854 (the server reads it as nanoseconds in an int64).
   * @default 1000
   */
  readonly nakDelay?: number;
  /**
   * Deliveries after which a failing message is dead-lettered: at most the consumer's own
   * `max_deliver` (after which the server delivers it no more). A safe integer.
   * @default the consumer's `max_deliver`, or 5 where it has none
   */
  readonly maxDeliver?: number;
  /**
   * Milliseconds after which a message still held tells the server it is being worked on (an
   * in-progress ack, which restarts its `ack_wait`), up to 2^31 - 1 (a Node timer's longest).
   * @default a third of the consumer's `ack_wait`
   */
  readonly progressEvery?: number;
  /**
   * Milliseconds a pull request waits on an empty stream, an integer from 1000 (the client's
   * least) to 9 223 372 036 854 (nanoseconds in an int64, as the server reads it); on a stop the
   * worker waits for none.
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
   * to the others first. Up to 2^31 - 1 (a Node timer's longest); leave it out never to stop so.
   */
  readonly idle?: number;
  /** Stops the worker when aborted. */
  readonly signal?: AbortSignal;
  /** Process signals that stop the worker, e.g. `['SIGTERM', 'SIGINT']` (listened to while it runs). */
  readonly stopOn?: readonly NodeJS.Signals[];
  /**
   * A connection to drain once the worker has stopped (the worker's own), so that the process can
   * exit; also the connection that hears the server's max-deliveries advisories, unless
   * `deadLetter.connection` is given.
   */
  readonly drain?: {
    /** Drains the connection: its subscriptions end once what they got is handled, and it closes. */
    drain(): Promise<void>;
  };
  /** Counters to count into (pulled, in flight, acked, nak'ed, redelivered, dead-lettered). */
  readonly counts?: JetStreamCounts;
}

/** The options {@link FromJetStreamOptions} declares. */
const FROM_JETSTREAM_OPTIONS: readonly string[] = [
  'counts', 'deadLetter', 'decode', 'drain', 'expires', 'frameBytes', 'idle', 'maxDeliver', 'nakDelay', 'process', 'progressEvery', 'signal', 'stopOn',
];

/** The options checked, with their defaults. */
export interface CheckedOptions extends Required<Omit<FromJetStreamOptions<any, any>, 'decode' | 'maxDeliver' | 'progressEvery' | 'idle' | 'signal' | 'drain' | 'deadLetter'>> {
  readonly decode: FromJetStreamOptions['decode'];
  readonly maxDeliver: number | undefined;
  readonly progressEvery: number | undefined;
  readonly idle: number | undefined;
  readonly signal: AbortSignal | undefined;
  readonly drain: FromJetStreamOptions['drain'];
  readonly deadLetter: DeadLetterOptions & { connection: NonNullable<DeadLetterOptions['connection']> };
}

export function checkWorkerOptions(consumer: unknown, pool: unknown, options: FromJetStreamOptions<any, any>): CheckedOptions {
  const fetchable = consumer as Partial<Consumer> | null;
  if (typeof fetchable?.fetch !== 'function' || typeof fetchable.info !== 'function') typeError('consumer', 'a pull Consumer (`js.consumers.get(stream, name)`)', consumer);
  if (!(pool instanceof LanePool)) typeError('pool', 'a LanePool', pool);
  if (pool.closed) typeError('pool', 'an open LanePool', 'a closed LanePool');
  checkOptions('options', options, FROM_JETSTREAM_OPTIONS);
  if (options === undefined) typeError('options', 'an options object with `process` and `deadLetter`', options);
  // Each option read once, each signal name too (a getter may answer differently each time, and
  // some() skips holes): what is checked is what the worker keeps.
  const { process: pipeline, deadLetter, decode, signal, stopOn: signals, drain, counts } = options;
  const { frameBytes, nakDelay, maxDeliver, progressEvery, expires, idle } = options;
  if (typeof pipeline !== 'function') typeError('process', 'a function from an Observable of Work to an Observable of Work', pipeline);
  checkOptions('deadLetter', deadLetter, ['connection', 'jetstream', 'subject'], 'deadLetter.');
  const { jetstream, subject, connection: listener } = (deadLetter ?? {}) as Partial<DeadLetterOptions>;
  if (typeof jetstream?.publish !== 'function') typeError('deadLetter.jetstream', 'a JetStreamClient', jetstream);
  checkSubject('deadLetter.subject', subject);
  if (decode !== undefined && typeof decode !== 'function') typeError('decode', 'a function', decode);
  if (signal !== undefined && !(signal instanceof AbortSignal)) typeError('signal', 'an AbortSignal', signal);
  const stopOn = signals === undefined ? [] : isArray(signals) ? elementsOf(signals) : undefined;
  if (stopOn === undefined || stopOn.some((s) => typeof s !== 'string' || !s.startsWith('SIG')))
    typeError('stopOn', 'an array of signal names such as SIGTERM', stopOn ?? signals);
  if (drain !== undefined && typeof drain?.drain !== 'function') typeError('drain', 'a NatsConnection', drain);
  if (counts !== undefined && !(counts instanceof JetStreamCounts)) typeError('counts', 'a JetStreamCounts', counts);
  const connection = listener ?? (drain as DeadLetterOptions['connection']);
  if (typeof connection?.subscribe !== 'function')
    typeError(
      'deadLetter.connection',
      "a NatsConnection to hear the server's max-deliveries advisories on (or `drain`, the worker's connection)",
      listener,
    );
  return {
    process: pipeline,
    deadLetter: { jetstream, subject: subject as string, connection },
    frameBytes: checkNumber('frameBytes', frameBytes, DEFAULT_FRAME_BYTES, 1, MAX_FRAME_BYTES, true, BOUND.frameBytes),
    decode,
    nakDelay: checkNumber('nakDelay', nakDelay, 1000, 0, MAX_DURATION_MS, true, BOUND.duration),
    maxDeliver: maxDeliver === undefined ? undefined : checkNumber('maxDeliver', maxDeliver, 0, 1, Number.MAX_SAFE_INTEGER, true, BOUND.count),
    progressEvery: progressEvery === undefined ? undefined : checkNumber('progressEvery', progressEvery, 0, 1, MAX_TIMER_MS, false, BOUND.timer),
    expires: checkNumber('expires', expires, 5000, 1000, MAX_DURATION_MS, true, BOUND.duration),
    idle: idle === undefined ? undefined : checkNumber('idle', idle, 0, 1, MAX_TIMER_MS, false, BOUND.timer),
    signal,
    stopOn: stopOn as NodeJS.Signals[],
    drain,
    counts: counts ?? new JetStreamCounts(),
  };
}

