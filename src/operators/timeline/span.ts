// What a Timeline records: finished spans, and what it sums up per stage.

/** One finished span: milliseconds from the timeline's start. */
export interface Span {
  /** The lane the stage ran on: its position in the pool, from 0. */
  readonly lane: number;
  /** The value's position in the source, from 0. */
  readonly index: number;
  /**
   * The stage's name: the kernel's name for a launch, `host` for a host step, and for a copy the
   * road the data took (e.g. `upload input [pinned]`).
   */
  readonly stage: string;
  /** `device`: work on the stream, timed by events; `host`: work on the CPU, timed by the clock. */
  readonly kind: 'device' | 'host';
  /** When the stage began, in milliseconds from the timeline's start. */
  readonly start: number;
  /** How long the stage ran, in milliseconds. */
  readonly duration: number;
  /** Bytes the stage moved (a copy), else 0. */
  readonly bytes: number;
}

/** What {@link Timeline.summary} says of one stage: its spans' count, total and mean (ms). */
export interface StageSummary {
  /** Whether the stage is device work or host work, as {@link Span.kind}. */
  readonly kind: 'device' | 'host';
  /** The stage's name, as {@link Span.stage}. */
  readonly stage: string;
  /** Number of spans of the stage (one per value it ran for). */
  count: number;
  /** The spans' durations added up, in milliseconds. */
  total: number;
  /** The spans' mean duration, in milliseconds: `total` over `count`. */
  mean: number;
  /** Bytes the stage's spans moved (0 for stages that copy nothing). */
  bytes: number;
  /** Bytes per second while the stage ran: `bytes` over `total`. */
  bytesPerSecond: number;
}

/**
 * A stage's name for people: a device stage by its own name (`invert`), the host step as
 * `host step`, a named host step as `host step NAME`, and the operators' host copies as
 * `host stage input [workers]`.
 */
export function stageLabel(kind: 'device' | 'host', stage: string): string {
  if (kind === 'device') return stage;
  if (stage === 'host') return 'host step';
  // Host copies of the operators' own (`stage input [workers]`) are no steps of the user's.
  return /\[workers\]$/.test(stage) ? `host ${stage}` : `host step ${stage}`;
}
