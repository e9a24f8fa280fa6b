// One subscription of fromJetStream: the consumer checked, messages pulled into frames, each put
// through its own pipeline on the pool's lanes, settled, and the stop that ends it all.
import type { Consumer, ConsumerInfo, JsMsg } from '@nats-io/jetstream';
import { Observable, isObservable, type Subscriber, type Subscription } from 'rxjs';
import { lanesFrom, PipelineError, type LanePool, type Work } from '../index.js';
import { requestFailure, watchIdle, workerSettings } from './connect.js';
import { MaxDeliveries } from './dead-letter.js';
import { ArgumentTypeError } from '../../core/base/errors.js';
import { JetStreamError, payloadTooLarge } from './errors.js';
import { Frames } from './frames.js';
import { JetStreamMessage, makeJetStreamMessage } from './message.js';
import { Puller } from './puller.js';
import { Settler, type Held, type JetStreamOutcome } from './settle.js';
import { MAX_TIMER_MS, type CheckedOptions } from './options.js';
import { countDeadLetter, countDuplicate } from './counts.js';

/** A message's value on its way through the pipeline, with what it holds. */
interface InFlight {
  readonly held: Held;
  readonly frame: JetStreamMessage['frame'];
}

export class WorkerRun {
  readonly #consumer: Consumer;
  readonly #pool: LanePool;
  readonly #options: CheckedOptions;
  readonly #subscriber: Subscriber<JetStreamOutcome>;
  readonly #buffer: Held[] = [];
  readonly #values = new Map<JetStreamMessage, InFlight>();
  readonly #cleanups: (() => void)[] = [];
  readonly #returns: Held[] = [];
  #pullsEnded = false;
  #puller: Puller | undefined;
  #settler: Settler | undefined;
  #frames: Frames | undefined;
  #maxDeliveries: MaxDeliveries | undefined;
  #subscription: Subscription | undefined;
  #waiter: (() => void) | undefined;
  #index = 0;
  #idle: ReturnType<typeof watchIdle> | undefined;
  #stopping = false;
  #sourceDone = false;
  #finished = false;
  #fatal: unknown;

  constructor(consumer: Consumer, pool: LanePool, options: CheckedOptions, subscriber: Subscriber<JetStreamOutcome>) {
    this.#consumer = consumer;
    this.#pool = pool;
    this.#options = options;
    this.#subscriber = subscriber;
  }

  start(): void {
    this.#consumer.info().then(
      (info) => this.#begin(info),
      (error) => this.#stop(requestFailure(error, (this.#consumer as { name?: string }).name ?? 'the consumer') ?? error),
    );
  }

  /** Stops pulling; what is in flight finishes and is settled (see fromJetStream). */
  stop(): void {
    this.#stop();
  }

  #begin(info: ConsumerInfo): void {
    const settings = workerSettings(info, this.#options.maxDeliver);
    if (settings instanceof JetStreamError) return this.#stop(settings);
    if (this.#stopping) return this.#stop();
    const options = this.#options;
    const emit = (outcome: JetStreamOutcome) => void (this.#subscriber.closed || this.#subscriber.next(outcome));
    const progressEvery = options.progressEvery ?? Math.min(MAX_TIMER_MS, settings.ackWait / 3);
    this.#settler = new Settler({ nakDelay: options.nakDelay, maxDeliver: settings.maxDeliver, deadLetter: options.deadLetter, progressEvery }, options.counts, emit);
    this.#maxDeliveries = MaxDeliveries.listen(info, options.deadLetter, {
      deadLettered: ({ stream, sequence, subject = '', deliveries, error }) => {
        countDeadLetter(options.counts);
        emit({ outcome: 'dead-letter', stream, sequence, subject, deliveryCount: deliveries, error });
      },
      failed: (error) => this.#stop(error),
      ended: () => this.#finishIfDone(),
    });
    this.#frames = new Frames(this.#pool, options.frameBytes);
    this.#puller = new Puller(this.#consumer, this.#pool.bound, options.expires, {
      message: (message) => this.#arrived(message),
      failed: (error) => {
        const failure = requestFailure(error, info.name);
        if (failure) this.#stop(failure);
        this.#idle?.arrived(); // a server that does not serve is no idle one
        return failure === undefined;
      },
      waiting: () => this.#waiter !== undefined,
      ended: () => {
        this.#pullsEnded = true;
        for (const held of this.#returns.splice(0)) this.#giveBack(held);
        this.#finishIfDone();
      },
    });
    this.#listen();
    if (this.#stopping) return this.#stop(); // its signal was aborted already
    const next = () => this.#next();
    const values = lanesFrom({ [Symbol.asyncIterator]: () => ({ next }) }, this.#pool);
    this.#subscription = values.subscribe({
      next: (work) => this.#run(work),
      error: (error) => {
        this.#sourceDone = true;
        // Values lanesFrom took and will not start (its pipeline has ended) go back.
        for (const entry of this.#values.values()) {
          this.#frames!.give(entry.frame);
          this.#giveBack(entry.held);
        }
        this.#values.clear();
        this.#stop(error);
      },
      complete: () => {
        this.#sourceDone = true;
        this.#finishIfDone();
      },
    });
  }

  /** Signals, the abort signal and the idle watch, each undone at the end. */
  #listen(): void {
    const { signal, stopOn, idle } = this.#options;
    const stop = () => this.#stop();
    for (const name of stopOn) {
      process.once(name, stop);
      this.#cleanups.push(() => process.removeListener(name, stop));
    }
    if (signal) {
      if (signal.aborted) return this.#stop();
      signal.addEventListener('abort', stop, { once: true });
      this.#cleanups.push(() => signal.removeEventListener('abort', stop));
    }
    if (idle !== undefined) {
      const watch = (this.#idle = watchIdle(this.#consumer, idle, { busy: () => this.#stopping || this.#settler!.held > 0, stop }));
      this.#cleanups.push(() => watch.close());
    }
  }

  #arrived(message: JsMsg): void {
    const held = this.#settler!.hold(message);
    this.#idle?.arrived();
    if (this.#stopping) return this.#giveBack(held);
    this.#buffer.push(held);
    this.#wake();
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  /** The next value for lanesFrom, which asks only with a place free for it. */
  async #next(): Promise<IteratorResult<JetStreamMessage>> {
    for (;;) {
      const held = this.#buffer.shift();
      if (held) {
        const value = this.#decode(held);
        if (value) return { value, done: false };
        continue;
      }
      if (this.#stopping) return { value: undefined, done: true };
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
        this.#puller!.pull();
      });
    }
  }

  /** The message's value, its payload decoded into a frame; undefined when that failed. */
  #decode(held: Held): JetStreamMessage | undefined {
    const { message } = held;
    const payload = message.data;
    const frames = this.#frames!;
    const decode = this.#options.decode;
    if (!decode && payload.length > frames.bytes) {
      this.#settle(this.#settler!.deadLetter(held, payloadTooLarge(message.info.stream, message.info.streamSequence, payload.length, frames.bytes)));
      return undefined;
    }
    let frame: JetStreamMessage['frame'];
    try {
      frame = frames.take();
    } catch (error) {
      this.#giveBack(held);
      this.#stop(error); // no pinned memory for a frame: no message can be taken
      return undefined;
    }
    const counts = this.#options.counts;
    let value: JetStreamMessage;
    try {
      const length = frames.fill(frame, payload, decode);
      value = makeJetStreamMessage(message, frame, length, (duplicate) => duplicate && countDuplicate(counts));
    } catch (error) {
      // The frame goes back and the message is settled as a failure: a held message nobody
      // settles would keep the worker from ever ending.
      frames.give(frame);
      this.#fail(held, new PipelineError('decode', this.#index, error));
      return undefined;
    }
    this.#values.set(value, { held, frame });
    this.#index++;
    return value;
  }

  /**
   * Puts one value through `process`, in a subscription of its own, whose source completes once
   * the value's device work so far is done (as lanesFrom's does): failures that the stream
   * reports later (a CPU kernel, a host step) still reach the operators that enqueued them.
   */
  #run(work: Work<JetStreamMessage>): void {
    const entry = this.#values.get(work.value)!;
    this.#values.delete(work.value);
    const failed = (error: unknown) => {
      this.#frames!.giveAfter(entry.frame, work.stream);
      this.#fail(entry.held, error);
    };
    const source = new Observable<Work<JetStreamMessage>>((subscriber) => {
      subscriber.next(work);
      try {
        work.stream.onDone(() => subscriber.complete());
      } catch {
        subscriber.complete(); // a broken device: the value's failure says so
      }
    });
    try {
      const out = this.#options.process(source);
      if (!isObservable(out)) throw new ArgumentTypeError(`Expected \`process\` to return an Observable, got ${typeof out}`);
      out.subscribe({
        error: failed,
        complete: () => {
          this.#frames!.give(entry.frame);
          void this.#settler!.ack(entry.held).then(() => this.#settled());
        },
      });
    } catch (error) {
      failed(new PipelineError('process', work.index, error));
    }
  }

  /** A failure of a message: a PipelineError fails it alone; anything else stops the worker. */
  #fail(held: Held, error: unknown): void {
    const broken = this.#pool.devices.every((device) => device.poisoned);
    if (!(error instanceof PipelineError) || broken) {
      this.#giveBack(held);
      return this.#stop(error);
    }
    this.#settle(this.#settler!.fail(held, error));
  }

  /** Once a message is settled (or could not be dead-lettered, which stops the worker), its place is free. */
  #settle(settling: Promise<void>): void {
    settling.then(
      () => this.#settled(),
      (failure: unknown) => {
        this.#settled();
        this.#stop(failure);
      },
    );
  }

  /** Gives a message back unprocessed, once the pulls have ended: nak'ed sooner, it would come straight back on a request still open. */
  #giveBack(held: Held): void {
    if (!this.#pullsEnded) return void this.#returns.push(held);
    this.#settler!.giveBack(held);
    this.#settled();
  }

  #settled(): void {
    this.#puller!.settled();
    this.#finishIfDone();
  }

  #stop(fatal?: unknown): void {
    if (fatal !== undefined && this.#fatal === undefined) this.#fatal = fatal;
    if (this.#stopping) return this.#finishIfDone();
    this.#stopping = true;
    for (const cleanup of this.#cleanups.splice(0)) cleanup();
    for (const held of this.#buffer.splice(0)) this.#giveBack(held);
    this.#puller?.stop();
    this.#wake();
    if (!this.#subscription) this.#sourceDone = true; // never started
    this.#finishIfDone();
  }

  #finishIfDone(): void {
    if (!this.#stopping || !this.#sourceDone || this.#finished || (this.#settler?.held ?? 0) > 0 || (this.#puller && !this.#pullsEnded)) return;
    if ((this.#maxDeliveries?.busy ?? 0) > 0) return;
    this.#finished = true;
    this.#settler?.close();
    this.#maxDeliveries?.close();
    this.#subscription?.unsubscribe();
    const drained = this.#options.drain?.drain().catch(() => {}) ?? Promise.resolve();
    void drained.then(() => {
      if (this.#subscriber.closed) return;
      if (this.#fatal !== undefined) this.#subscriber.error(this.#fatal);
      else this.#subscriber.complete();
    });
  }
}
