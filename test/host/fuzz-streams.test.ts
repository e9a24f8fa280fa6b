// The entry points of streams, devices, memory and events, fuzzed with an oracle of validity
// (test/support/fuzz-harness.ts): valid calls give the right results, invalid ones are refused
// in rxcuda's words with nothing enqueued, on the first call and the hundredth.
import { STREAM_ENTRIES, streamEntries } from '../support/fuzz-stream-entries.js';
import { fuzzSuite } from '../support/fuzz-suite.js';

fuzzSuite('stream, device, memory and event entry points, fuzzed', 'fuzz-streams', STREAM_ENTRIES, streamEntries);
