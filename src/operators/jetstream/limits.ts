// The bounds of the numbers a user sizes a JetStream worker with, from what the server and Node
// take: each is a RangeError past them, instead of a value the server or a timer reads otherwise.

/** The largest `max_payload` nats-server takes (64 MiB): no message is larger, and no frame need be. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/**
 * The longest duration the server takes, in milliseconds: it reads durations (a pull's `expires`,
 * a nak's delay) as nanoseconds in an int64, and refuses, or reads as none, a longer one.
 */
export const MAX_DURATION_MS = Math.floor((2 ** 63 - 1) / 1e6);

/** The longest delay of a Node timer, in milliseconds (2^31 - 1): a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Where each bound comes from, as the RangeError past it says. */
export const BOUND = {
  frameBytes: "64 MiB, the largest max_payload nats-server takes",
  duration: 'the server reads it as nanoseconds in an int64',
  timer: "2^31 - 1, a Node timer's longest",
  count: 'a safe integer',
} as const;
