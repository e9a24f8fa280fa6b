// rxcuda/jetstream's entry points, fuzzed without a server with an oracle of validity
// (test/support/fuzz-harness.ts): valid calls give the right results, invalid ones are refused
// in rxcuda's words with nothing enqueued, on the first call and the hundredth.
import { JETSTREAM_ENTRIES, jetstreamEntries } from '../support/fuzz-jetstream-entries.js';
import { fuzzSuite } from '../support/fuzz-suite.js';

fuzzSuite('rxcuda/jetstream entry points, fuzzed', 'fuzz-jetstream', JETSTREAM_ENTRIES, jetstreamEntries);
