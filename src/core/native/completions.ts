// The JavaScript end of the completion queue: ids handed to the addon when work is enqueued come
// back here, drained in batches on the main thread, and settle what was waiting for them.
import { describeFailure } from '../base/errors.js';

/**
 * Called with the stream's CUresult (0 when the work before the notification succeeded), and the
 * value and number given with the handler, if any (see {@link expectCompletionWith}).
 */
export type CompletionHandler = (status: number, data?: unknown, mark?: number) => void;

// Handlers by id - 1, in slots that are reused: an id is free again once its completion was
// drained or cancelled. A Map keyed by ever-growing ids would do as well for lookups, but each
// rehash of its table leaves the old table pointing at the new one, and once the old one is in
// the old generation that chain keeps every newer table (and what it references) alive through
// the young generation's collections: at thousands of completions a second that made each
// scavenge copy and promote megabytes, and pause the main thread for milliseconds.
const handlers: (CompletionHandler | null | undefined)[] = []; // null: reserved, no handler yet
// Each slot's data for its handler: a handler made once can serve many completions, each of which
// would otherwise need a closure of its own.
const data: unknown[] = [];
const marks: number[] = [];
const freeSlots: number[] = [];

/**
 * Reserves an id for a completion, to be given its handler with {@link onCompletion} before control
 * returns to the event loop (completions are only drained from there), e.g. right after the
 * enqueue, which then comes sooner.
 */
export function reserveCompletion(): number {
  const slot = freeSlots.pop() ?? handlers.length;
  handlers[slot] = null;
  return slot + 1;
}

/** Has the completion of a reserved id call `handler`. */
export function onCompletion(id: number, handler: CompletionHandler): void {
  handlers[id - 1] = handler;
}

/** Reserves an id whose completion calls `handler`; pass the id to the addon's notify. */
export function expectCompletion(handler: CompletionHandler): number {
  const id = reserveCompletion();
  onCompletion(id, handler);
  return id;
}

/**
 * Reserves an id whose completion calls `handler(status, value, mark)`: a handler made once
 * serves every completion it is given for, each with its own value and number.
 */
export function expectCompletionWith<D>(handler: (status: number, value: D, mark: number) => void, value: D, mark: number): number {
  const id = reserveCompletion();
  handlers[id - 1] = handler as CompletionHandler;
  data[id - 1] = value;
  marks[id - 1] = mark;
  return id;
}

/** Forgets an id whose enqueue failed: nothing will come back for it. */
export function cancelCompletion(id: number): void {
  if (handlers[id - 1] === undefined) return;
  handlers[id - 1] = undefined;
  data[id - 1] = undefined;
  freeSlots.push(id - 1);
}

/** How many records one hand-over carries at most (more come in further rounds). */
const MAILBOX_RECORDS = 1024;

/**
 * The arrays the addon writes drained records into before it calls {@link drainCompletions}:
 * allocated once, so a completion costs no allocation on its way to JavaScript.
 */
export const completionMailbox = {
  ids: new Uint32Array(MAILBOX_RECORDS),
  statuses: new Int32Array(MAILBOX_RECORDS),
};

/** What hears the addon's notices (id 0): a device thread's failed submission, with its CUresult. */
let noticeHandler: ((status: number) => void) | undefined;

/** Has each notice of a failed submission call `handler` (once per environment, by the queue). */
export function onSubmitNotice(handler: (status: number) => void): void {
  noticeHandler = handler;
}

/** Entry point for the addon: the first `count` records of the mailbox, oldest first. */
export function drainCompletions(count: number): void {
  const { ids, statuses } = completionMailbox;
  for (let i = 0; i < count; i++) {
    if (ids[i] === 0) {
      try {
        noticeHandler?.(statuses[i]!);
      } catch (error) {
        warnThrown('A submission notice', error);
      }
      continue;
    }
    const handler = handlers[ids[i]! - 1];
    if (!handler) continue;
    const given = data[ids[i]! - 1];
    const mark = marks[ids[i]! - 1];
    cancelCompletion(ids[i]!);
    try {
      handler(statuses[i]!, given, mark);
    } catch (error) {
      warnThrown('A completion handler', error);
    }
  }
}

/**
 * Reports what a handler threw: handlers are rxcuda's own code (or listeners they called), and a
 * throw is reported without stopping the drain, never escaping into the addon, whatever was thrown.
 */
function warnThrown(who: string, error: unknown): void {
  try {
    process.emitWarning(error instanceof Error ? error : `${who} threw: ${describeFailure(error)}`);
  } catch {
    // Nothing more can be said.
  }
}
