// The entry points of pipelines: lane pools, onStreams and the operators, fuzzed with an oracle of validity
// (test/support/fuzz-harness.ts): valid calls give the right results, invalid ones are refused
// in rxcuda's words with nothing enqueued, on the first call and the hundredth.
import { PIPELINE_ENTRIES, pipelineEntries } from '../support/fuzz-pipeline-entries.js';
import { fuzzSuite } from '../support/fuzz-suite.js';

fuzzSuite('pipeline entry points, fuzzed', 'fuzz-pipelines', PIPELINE_ENTRIES, pipelineEntries);
