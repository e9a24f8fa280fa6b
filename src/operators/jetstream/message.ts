// The value a JetStream worker's pipeline gets for each message: the payload in pinned memory,
// with the message's metadata.
import type { JsMsg } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/transport-node';
import type { HostArray } from '../../core/index.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../../core/base/constructor-token.js';

/** The message fromJetStream gives for `message`, its payload in `frame`; `published` hears of its results' acknowledgements. */
export let makeJetStreamMessage: (message: JsMsg, frame: HostArray<'u8'>, length: number, published: (duplicate: boolean) => void) => JetStreamMessage;

/**
 * Tells `message` that the server acknowledged the sink's publish of one of its results
 * (`duplicate`: as a duplicate).
 */
export let notePublished: (message: JetStreamMessage, duplicate: boolean) => void;

/**
 * One message of a durable consumer, as a worker's pipeline gets it (`work.value`): the payload,
 * decoded into a pinned frame, and where the message comes from. The frame is reused for a later
 * message once this one is settled: read it in the pipeline, not later (copy what you keep).
 *
 * @example
 * process: (messages) => messages.pipe(
 *   upload((m) => m.data), // pinned already: the device copies it, the host copies nothing
 *   host((w) => console.log(`${w.value.stream} #${w.value.sequence}, delivery ${w.value.deliveryCount}`)),
 * )
 */
export class JetStreamMessage {
  /** The decoded payload: a view of {@link frame}, as long as the decoder wrote (the payload's length by default). */
  readonly data: HostArray<'u8'>;
  /** The whole pinned frame the payload was decoded into (`frameBytes` long), one of the lane pool's buffers. */
  readonly frame: HostArray<'u8'>;
  /** The stream the message is stored in. */
  readonly stream: string;
  /** The durable consumer it was delivered through. */
  readonly consumer: string;
  /** Its sequence number in the stream. */
  readonly sequence: number;
  /** How many times it has been delivered, this time included (1 the first time). */
  readonly deliveryCount: number;
  /** The subject it was published on. */
  readonly subject: string;
  /** Its headers, if it has any. */
  readonly headers: MsgHdrs | undefined;
  /** When it was stored, in nanoseconds since the epoch. */
  readonly timestampNanos: number;
  /** Its payload's length in bytes, as it came from the server. */
  readonly size: number;
  readonly #onPublished: (duplicate: boolean) => void;

  static #make(message: JsMsg, frame: HostArray<'u8'>, length: number, published: (duplicate: boolean) => void): JetStreamMessage {
    return new JetStreamMessage(CONSTRUCTOR_TOKEN, message, frame, length, published);
  }

  private constructor(token: ConstructorToken, message: JsMsg, frame: HostArray<'u8'>, length: number, published: (duplicate: boolean) => void) {
    checkConstructorToken(token, 'a JetStreamMessage', 'fromJetStream()');
    const { info } = message;
    this.frame = frame;
    this.data = length === frame.length ? frame : frame.subarray(0, length);
    this.stream = info.stream;
    this.consumer = info.consumer;
    this.sequence = info.streamSequence;
    this.deliveryCount = info.deliveryCount;
    this.subject = message.subject;
    this.headers = message.headers;
    this.timestampNanos = info.timestampNanos;
    this.size = message.data.length;
    this.#onPublished = published;
  }

  /** Whether it was delivered before (to this worker or another) and not acked then. */
  get redelivered(): boolean {
    return this.deliveryCount > 1;
  }

  /**
   * The message ID its results are published with (`Nats-Msg-Id`): the stream and the sequence,
   * the same on every delivery, so that the server drops a redelivered input's second result.
   */
  get msgID(): string {
    return `${this.stream}:${this.sequence}`;
  }

  #published(duplicate: boolean): void {
    this.#onPublished(duplicate);
  }
  static {
    makeJetStreamMessage = (message, frame, length, published) => JetStreamMessage.#make(message, frame, length, published);
  }
  static {
    notePublished = (message, duplicate) => message.#published(duplicate);
  }
}
