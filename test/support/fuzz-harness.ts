// The property behind the entry-point fuzzers (test/host/fuzz-*.test.ts): each entry point's valid
// and invalid calls, made by fast-check, in random order and then each invalid one again until it
// has been made REPEATS times, interleaved with valid ones (fast paths cache what they checked).
// Every call has an oracle: a valid call must succeed with the right result; an invalid one must
// be refused in rxcuda's words (TypeError/RangeError ``Expected `name` to be …`` or ``Unknown
// option``, or the documented class) with nothing enqueued, the first time and the hundredth.
import fc from 'fast-check';
import { PipelineError } from '../../src/index.js';

/** How a refusal reaches the caller. */
export type Via = 'throw' | 'reject' | 'pipeline';

type ErrorClass = abstract new (...args: never[]) => Error;

/** One call of an entry point, with what it must do. */
export interface FuzzCall {
  /** How a failure names the call: `fill(u32, NaN)`. */
  readonly label: string;
  /**
   * Whether the call is valid; 'either' for a call whose arguments answer otherwise at each read
   * (a getter), which must be accepted with the result of the values read once, or refused.
   */
  readonly valid: boolean | 'either';
  /** For an invalid call: how its refusal comes (thrown at once by default). */
  readonly via?: Via;
  /** For an invalid call: the classes its refusal may be of (TypeError and RangeError by default). */
  readonly errors?: readonly ErrorClass[];
  /** Makes the call; what it returns (awaited) goes to `check`. */
  run(): unknown;
  /** For a valid call: throws unless its result is right (after awaiting whatever it must). */
  check?(result: unknown): void | Promise<void>;
}

/** An entry point and the calls fast-check makes of it. */
export interface EntryPoint {
  readonly name: string;
  readonly calls: fc.Arbitrary<FuzzCall>;
  /** Times each invalid call of a run is made at least (100 unless said). */
  readonly repeats?: number;
}

/** What a fuzzer's environment gives the property: counts that a refusal must leave as they were, and a check that the device still gives exact results. */
export interface FuzzEnvironment {
  /** Commands given to the streams the calls use, and other counts no refusal may move. */
  counters(): readonly number[];
  /** Enqueues work on the streams and throws unless it gives exact results. */
  sentinel(): Promise<void>;
}

/** Calls and refusals made, by entry point. */
export class FuzzTally {
  readonly entries = new Map<string, { calls: number; refused: number }>();

  count(name: string, refused: boolean): void {
    const entry = this.entries.get(name) ?? { calls: 0, refused: 0 };
    entry.calls++;
    if (refused) entry.refused++;
    this.entries.set(name, entry);
  }

  /** `12 345 calls (6 789 refused) over 14 entry points`, as one line. */
  summary(what: string, seed: number): string {
    const all = [...this.entries.values()];
    const calls = all.reduce((n, e) => n + e.calls, 0), refused = all.reduce((n, e) => n + e.refused, 0);
    return `${what} (seed ${seed}): ${calls} calls (${refused} refused, ${calls - refused} accepted) over ${all.length} entry points`;
  }
}

/** The seed and runs of every fuzzer: FUZZ_SEED and FUZZ_RUNS change them (fast-check prints the seed of a failure). */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261205);
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 10);
const DEADLINE_MS = 5000;

const OWN_WORDS = /^(Expected `[^`]+` to be |Expected either |Unknown option `)/;

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function withDeadline<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${DEADLINE_MS} ms (a hang)`)), DEADLINE_MS);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function shown(error: unknown): string {
  try {
    return error instanceof Error ? `${error.constructor.name}: ${error.message}` : `a thrown ${typeof error}: ${String(error)}`;
  } catch {
    return 'a thrown value that cannot be printed';
  }
}

/** Throws unless `error` is a refusal of `call` in rxcuda's words, of one of its classes. */
function checkRefusal(call: FuzzCall, error: unknown, nth: number): void {
  let reason = error;
  if (call.via === 'pipeline' && error instanceof PipelineError) reason = error.cause;
  const classes = call.errors ?? [TypeError, RangeError];
  const fits = classes.some((c) => reason instanceof c);
  const worded = classes.some((c) => c !== TypeError && c !== RangeError && reason instanceof c) || (reason instanceof Error && OWN_WORDS.test(reason.message));
  if (!fits || !worded) throw new Error(`${call.label} (call #${nth} of it) was refused in words not rxcuda's: ${shown(reason)}`);
}

/** Makes one call and checks it against its oracle; returns whether it was refused. */
export async function perform(call: FuzzCall, env: FuzzEnvironment, nth: number): Promise<boolean> {
  const before = env.counters().join();
  let result: unknown;
  try {
    result = call.run();
  } catch (error) {
    if (call.valid === true) throw new Error(`${call.label} (call #${nth} of it) is valid, and was refused: ${shown(error)}`, { cause: error });
    checkRefusal(call, error, nth);
    const after = env.counters().join();
    if (after !== before) throw new Error(`${call.label} (call #${nth} of it) was refused, and work was given: [${before}] → [${after}]`);
    return true;
  }
  if (call.valid === false && (call.via ?? 'throw') === 'throw')
    throw new Error(`${call.label} (call #${nth} of it) is invalid, and was accepted${isPromise(result) ? ' (it returned a Promise)' : ''}`);
  if (isPromise(result)) {
    try {
      result = await withDeadline(result, call.label);
    } catch (error) {
      if (call.valid === true || /\(a hang\)$/.test((error as Error)?.message ?? '')) throw new Error(`${call.label} (call #${nth} of it) is valid, and failed: ${shown(error)}`, { cause: error });
      checkRefusal(call, error, nth);
      // A value refused by an operator had its earlier operators' work enqueued, as it should.
      const after = env.counters().join();
      if (call.via !== 'pipeline' && after !== before) throw new Error(`${call.label} (call #${nth} of it) was refused, and work was given: [${before}] → [${after}]`);
      return true;
    }
  }
  if (call.valid === false) throw new Error(`${call.label} (call #${nth} of it) is invalid, and was accepted`);
  await call.check?.(result);
  return false;
}

/**
 * Runs `entry`'s property: a few calls drawn at once, made in a random order, then each invalid
 * one again until it has been made `repeats` times, with a valid one every tenth call; then the
 * sentinel. Counts every call in `tally`.
 */
export async function fuzzEntry(entry: EntryPoint, env: FuzzEnvironment, tally: FuzzTally, runs = FUZZ_RUNS): Promise<void> {
  const repeats = entry.repeats ?? 100;
  const property = fc.asyncProperty(
    fc.array(entry.calls, { minLength: 2, maxLength: 6 }),
    fc.array(fc.nat(), { minLength: 10, maxLength: 40 }),
    async (calls, order) => {
      const made = new Map<FuzzCall, number>();
      const make = async (call: FuzzCall) => {
        const nth = (made.get(call) ?? 0) + 1;
        made.set(call, nth);
        tally.count(entry.name, await perform(call, env, nth));
      };
      for (const i of order) await make(calls[i % calls.length]!);
      const valid = calls.filter((c) => c.valid === true);
      let between = 0;
      for (const call of calls.filter((c) => c.valid !== true))
        while ((made.get(call) ?? 0) < repeats) {
          await make(call);
          if (valid.length > 0 && ++between % 10 === 0) await make(valid[(between / 10) % valid.length]!);
        }
      await env.sentinel();
    },
  );
  await fc.assert(property, { seed: FUZZ_SEED, numRuns: runs, endOnFailure: true });
}

/** A valid call: `run` makes it, `check` (optional) throws unless its result is right. */
export function valid<R>(label: string, run: () => R, check?: (result: Awaited<R>) => void | Promise<void>): FuzzCall {
  return { label, valid: true, run, ...(check ? { check: check as NonNullable<FuzzCall['check']> } : {}) } as FuzzCall;
}

/**
 * A call whose arguments answer a valid value and an invalid one at alternate reads: it must be
 * refused, or accepted with `check`'s result (of the values read once: the checked ones are used).
 */
export function either<R>(label: string, run: () => R, check: (result: Awaited<R>) => void | Promise<void>): FuzzCall {
  return { label, valid: 'either', run, check: check as NonNullable<FuzzCall['check']> };
}

/** An invalid call: `run` makes it; it must be refused (at once, unless `via` says otherwise). */
export function invalid(label: string, run: () => unknown, how: { via?: Via; errors?: readonly ErrorClass[] } = {}): FuzzCall {
  return { label, valid: false, run, ...how };
}
