// timeline/: what a pipeline's stages did, lane by lane: spans recorded as values go through
// (timeline.ts), summaries, a Chrome trace, and a self-contained HTML page (timeline-html.ts,
// timeline-page.ts), with overlapping spans laid out on rows of their own (timeline-rows.ts).
// Imports src/core only.
export { Timeline, type Span } from './timeline.js';
export type { StageSummary, TraceEvent, ChromeTrace } from './timeline.js';
export type { TimelineHtmlOptions } from './timeline-html.js';
export { FileWriteError } from './write-file.js';
