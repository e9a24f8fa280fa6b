// rxcuda/jetstream: GPU pipelines that consume and produce NATS JetStream (a source on a durable
// pull consumer, a sink with message IDs, counters, a connect helper). It imports the reactive
// layer through ../index.js and the object model through ../../core/index.js, and the one check
// of options objects and the token of what rxcuda makes from ../../core/base/, nothing else of
// rxcuda; the NATS client, an optional peer dependency, is loaded by peer.ts alone.
/**
 * GPU pipelines that consume and produce NATS JetStream: a source on a durable pull consumer
 * ({@link fromJetStream}), a sink that publishes results with message IDs ({@link toJetStream}),
 * counters and a connect helper. Needs the optional peer dependencies `@nats-io/jetstream` and
 * `@nats-io/transport-node`.
 *
 * @module rxcuda/jetstream
 */
import './peer.js';

export { fromJetStream } from './source.js';
export { DEFAULT_FRAME_BYTES, type FromJetStreamOptions } from './options.js';
export { toJetStream, type ToJetStreamOptions, type ResultData } from './sink.js';
export { connectJetStream, type ConnectJetStreamOptions, type JetStreamWorkerConnection } from './connect.js';
export { JetStreamMessage } from './message.js';
export { JetStreamCounts, type JetStreamCountsSnapshot } from './counts.js';
export { JetStreamError, type JetStreamErrorReason } from './errors.js';
export { type JetStreamOutcome } from './settle.js';
export { DEAD_LETTER_HEADERS, type DeadLetterOptions } from './dead-letter.js';
export { PEER_DEPENDENCIES } from './peer.js';
