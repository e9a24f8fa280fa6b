// toJetStream: the sink of a JetStream worker, publishing each value's result with a message ID
// from its input, so that the server drops the second result of an input processed twice.
import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/transport-node';
import { Observable, type OperatorFunction } from 'rxjs';
import { bytesOf as viewBytes, isView } from '../../core/base/buffers.js';
import { HostArray } from '../../core/index.js';
import { PipelineError, type Work } from '../index.js';
import { checkOptions, checkNumber, checkSubject, typeError } from './args.js';
import { BOUND, MAX_TIMER_MS } from './options.js';
import { JetStreamMessage, notePublished } from './message.js';

/** What {@link toJetStream} publishes: bytes, any TypedArray or DataView (as bytes), or pinned memory. */
export type ResultData = ArrayBufferView | HostArray;

/** Options for {@link toJetStream}. */
export interface ToJetStreamOptions<W> {
  /** Headers to publish the result with, beside `Nats-Msg-Id`. */
  readonly headers?: (work: W) => MsgHdrs | undefined;
  /**
   * The message ID of a value's result.
   * @default `${stream}:${sequence}` of the input message ({@link JetStreamMessage.msgID})
   */
  readonly msgID?: (work: W) => string;
  /** Milliseconds to wait for the server's acknowledgement of each publish (the client's default where left out), an integer up to 2^31 - 1 (a Node timer's longest). */
  readonly timeout?: number;
  /**
   * Tries of each publish when the server does not answer in time or has no responder (a cluster
   * between leaders), with the client's backoff between them; safe, as the message ID makes a
   * second store of the same result a duplicate. Past them the value fails (and is nak'ed): more
   * tries spare deliveries, fewer free the lanes sooner (each try may wait out `timeout`).
   * @default 1
   */
  readonly retries?: number;
}

/** `data` as bytes, sharing its memory, measured through its internal slots (never its getters). */
function bytesOf(data: ResultData): Uint8Array {
  if (data instanceof HostArray) data = data.data;
  if (!isView(data)) typeError('select(work)', 'a TypedArray, a DataView or a HostArray', data);
  return viewBytes(data)!;
}

/**
 * Publishes each value's result to a JetStream subject and re-emits the value once the server has
 * acknowledged it (stored it, or dropped it as a duplicate). The result goes out with a
 * `Nats-Msg-Id` made from the input's stream and sequence, the same on every delivery of the
 * input: a stream with a duplicate window (2 minutes by default) keeps one result per input, so
 * that an input processed twice (its worker died before acking it, or its ack was lost) yields
 * its result once. That exactly-once effect holds within the window (docs/jetstream.md, "Delivery guarantees").
 *
 * Use it last in the `process` of {@link fromJetStream}, after `download` (or `completed`):
 * `select` reads host data. The input is acked only after this publish was acknowledged.
 *
 * @example
 * process: (messages) => messages.pipe(
 *   upload((m) => m.data),
 *   launch(invert, config, [(w) => w.buffers.input, (w) => w.value.size]),
 *   download((w) => w.buffers.input, 'out'),
 *   toJetStream(jetstream, 'results.frames', (w) => w.results.out),
 * )
 *
 * @param jetstream the JetStream client to publish with.
 * @param subject the subject, or a function that gives each value's.
 * @param select the value's result, on the host.
 * @param options headers, the message ID, the publish timeout and its tries.
 * @returns an operator that re-emits each {@link Work} once its result was accepted.
 * @throws TypeError or RangeError for bad arguments (at once); PipelineError (to the subscriber)
 * when `select` or `subject` throws, or the publish fails (no stream takes the subject, a
 * timeout), whose `cause` is the NATS client's error.
 * @see fromJetStream
 */
export function toJetStream<T, B, R>(
  jetstream: JetStreamClient,
  subject: string | ((work: Work<T, B, R>) => string),
  select: (work: Work<T, B, R>) => ResultData,
  options: ToJetStreamOptions<Work<T, B, R>> = {},
): OperatorFunction<Work<T, B, R>, Work<T, B, R>> {
  if (typeof (jetstream as Partial<JetStreamClient> | null)?.publish !== 'function') typeError('jetstream', 'a JetStreamClient', jetstream);
  if (typeof subject !== 'function') checkSubject('subject', subject);
  if (typeof select !== 'function') typeError('select', 'a function from a value to its result', select);
  checkOptions('options', options, ['headers', 'msgID', 'retries', 'timeout']);
  const { headers, msgID, timeout } = options;
  if (headers !== undefined && typeof headers !== 'function') typeError('headers', 'a function', headers);
  if (msgID !== undefined && typeof msgID !== 'function') typeError('msgID', 'a function', msgID);
  if (timeout !== undefined) checkNumber('timeout', timeout, 0, 1, MAX_TIMER_MS, true, BOUND.timer);
  const retries = checkNumber('retries', options.retries, 1, 1, Number.MAX_SAFE_INTEGER, true, BOUND.count);
  const name = `toJetStream(${typeof subject === 'string' ? subject : 'subject(work)'})`;
  return (source) =>
    new Observable((subscriber) => {
      let pending = 0;
      let sourceDone = false;
      const settle = () => {
        pending--;
        if (sourceDone && pending === 0) subscriber.complete();
      };
      return source.subscribe({
        next: (work) => {
          let published: Promise<PubAck>;
          try {
            const id = msgID ? msgID(work) : work.value instanceof JetStreamMessage ? work.value.msgID : undefined;
            if (typeof id !== 'string' || id.length === 0) typeError('msgID', 'given for values that are not JetStream messages', id);
            const to = typeof subject === 'string' ? subject : checkSubject('subject(work)', subject(work));
            const extra = headers?.(work);
            published = jetstream.publish(to, bytesOf(select(work)), { msgID: id, retries, ...(extra ? { headers: extra } : {}), ...(timeout ? { timeout } : {}) });
          } catch (error) {
            return subscriber.error(new PipelineError(name, work.index, error));
          }
          pending++;
          published.then(
            (ack) => {
              if (subscriber.closed) return;
              if (work.value instanceof JetStreamMessage) notePublished(work.value, ack.duplicate);
              subscriber.next(work);
              settle();
            },
            (error: unknown) => subscriber.error(new PipelineError(name, work.index, error)),
          );
        },
        error: (error) => subscriber.error(error),
        complete: () => {
          sourceDone = true;
          if (pending === 0) subscriber.complete();
        },
      });
    });
}
