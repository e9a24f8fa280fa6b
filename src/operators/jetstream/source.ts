// fromJetStream: a durable pull consumer's messages through a GPU pipeline on a lane pool, each
// message settled by what became of its value.
import type { Consumer } from '@nats-io/jetstream';
import { Observable } from 'rxjs';
import type { LanePool } from '../index.js';
import { checkWorkerOptions, type FromJetStreamOptions } from './options.js';
import { WorkerRun } from './run.js';
import type { JetStreamOutcome } from './settle.js';

/**
 * A worker on a durable pull consumer: pulls messages into pinned frames, no more than the lane
 * pool's in-flight bound unsettled at once (the GPU's backpressure reaches the broker), puts each
 * through `process` on the pool's lanes, and settles it by what became of it: acked once its
 * work is done and its result accepted by the sink; nak'ed with `nakDelay` when it failed
 * (a PipelineError); on its last delivery (`maxDeliver`) published to the dead-letter subject
 * with its error, and terminated; a message larger than the frames is dead-lettered at once. A
 * message that used up the consumer's `max_deliver` without being settled (its worker was killed
 * on its last delivery, or stopped, or lost the server) is dead-lettered by the workers that hear
 * the server's advisory of it (on `deadLetter.connection`, or `drain`), read from the stream by
 * its sequence, once between them. A message held long gets in-progress acks, so that the server
 * does not deliver it elsewhere while the GPU works on it. Every process that runs the same
 * pipeline on the same consumer is a worker; the server spreads the messages over them, and
 * gives those of a worker that died to the others after `ack_wait`.
 *
 * The worker stops when unsubscribed, aborted (`signal`), signalled (`stopOn`) or `idle`: it
 * pulls no more (its open requests end once the server is quiet on them), gives back what it had
 * pulled and not started, finishes and acks what is in flight, drains `drain`, and then completes
 * (an unsubscribed one emits nothing more). An error that it cannot go on from (see
 * {@link JetStreamError}) stops it the same way, and then errors it. A node that dies under it is
 * no such error: its requests are sent again to the nodes left (see `expires`).
 *
 * Use it for a pool of its own: pipelines sharing the pool take places the worker counted on. Its
 * frames are the pool's pinned buffers, counted in `pool.stats`.
 *
 * @example
 * const { connection, jetstream, consumer } = await connectJetStream({ servers, stream: 'FRAMES', consumer: 'gpu' });
 * const pool = new LanePool(Device.default(), { lanes: 2, inFlight: 4 });
 * fromJetStream(consumer, pool, {
 *   frameBytes: 65536,
 *   deadLetter: { jetstream, subject: 'frames.dead' },
 *   stopOn: ['SIGTERM'],
 *   drain: connection,
 *   process: (messages) => messages.pipe(
 *     upload((m) => m.data),
 *     launch(invert, { grid: 64, block: 256 }, [(w) => w.buffers.input, (w) => w.value.size]),
 *     download((w) => w.buffers.input, 'out'),
 *     toJetStream(jetstream, 'results.frames', (w) => w.results.out),
 *   ),
 * }).subscribe((settled) => console.log(settled.outcome, settled.sequence));
 *
 * @param consumer the durable pull consumer, with explicit acks.
 * @param pool the lanes; its in-flight bound bounds the messages held.
 * @param options `process`, `deadLetter`, the frames' size and more (see {@link FromJetStreamOptions}).
 * @returns an Observable of what became of each message; subscribing starts a worker.
 * @throws TypeError or RangeError for bad arguments (at once); JetStreamError to the subscriber
 * when the consumer cannot be used (missing, not a pull consumer, no explicit acks), no stream
 * takes the dead-letter subject, or the connection closed.
 * @see toJetStream
 * @see connectJetStream
 */
export function fromJetStream<B, R>(consumer: Consumer, pool: LanePool, options: FromJetStreamOptions<B, R>): Observable<JetStreamOutcome> {
  const checked = checkWorkerOptions(consumer, pool, options);
  return new Observable<JetStreamOutcome>((subscriber) => {
    const run = new WorkerRun(consumer, pool, checked, subscriber);
    run.start();
    return () => run.stop();
  });
}
