// The one subscription shape every operator shares: values in, errors and completion passed on,
// and every throw of the operator's own code turned into a PipelineError for the subscriber.
import type { Observable, Subscriber } from 'rxjs';
import { ArgumentTypeError, describe, isInstance, type CudaError } from '../../core/base/errors.js';
import { failureScope } from '../../core/queue/failure-route.js';
import { PipelineError, Work, type AnyWork, settleFailure, waitForValue, holdValue, releaseValueWhenDone, releaseValue } from './work.js';

/**
 * Subscribes `subscriber` to `source`, calling `next` for each value. An operator that emits
 * after device work calls `expectEmission()` for each emission it will make later, and the
 * function that returns once it has made it; the subscriber completes only when the source has
 * and no emission is pending. What `next` enqueues that fails later
 * (a CPU kernel that throws, a step that times out, a queued command the driver refuses) reaches
 * the subscriber as a PipelineError of this operator and value, not the stream's `error` event.
 * Once the pipeline has ended (an error, completion or unsubscribing), such failures of its
 * values still in flight are dropped: they follow from its end, and nobody waits for them (a
 * lane's stream of a pipeline's own pool has nobody to listen either).
 * A value that is not a {@link Work} envelope (no `onStreams`, `lanesFrom` or `framesFrom`
 * upstream) errors the subscriber with a TypeError that says so.
 */
export function operate<W extends AnyWork, O>(
  name: string,
  source: Observable<W>,
  subscriber: Subscriber<O>,
  next: (work: W, expectEmission: () => () => void) => void,
) {
  return operateNamed({ name, first: name }, source, subscriber, next);
}

/**
 * {@link operate}, for operators whose name changes while a value passes (a run of steps, see
 * step-run.ts): a failure names the operator `naming.name` names when it happens, or when what
 * failed later was enqueued; a value that is not an envelope, the first operator (`naming.first`).
 */
export function operateNamed<W extends AnyWork, O>(
  naming: { readonly name: string; readonly first: string },
  source: Observable<W>,
  subscriber: Subscriber<O>,
  next: (work: W, expectEmission: () => () => void) => void,
) {
  let pending = 0;
  let sourceDone = false;
  // One function marks every pending emission made: each expectEmission() is answered once.
  const emitted = () => {
    pending--;
    if (sourceDone && pending === 0) subscriber.complete();
  };
  const expectEmission = () => {
    pending++;
    return emitted;
  };
  const fail = (work: W, error: unknown, name: string) => {
    if (subscriber.closed) return true; // the pipeline has ended: see above
    const failure = settleFailure(work, new PipelineError(name, work.index, error));
    if (failure !== undefined) subscriber.error(failure);
    return true;
  };
  // Made only when what `next` enqueues captures it (see failureScope.enter), naming the operator
  // that enqueued it.
  const routeOf = (work: W) => {
    const name = naming.name;
    return (error: unknown) => fail(work, error, name);
  };
  return source.subscribe({
    next: (work) => {
      if (!isInstance(work, Work)) {
        const what = 'a Work envelope: put onStreams, lanesFrom or framesFrom before it';
        return subscriber.error(new ArgumentTypeError(`Expected the values of ${naming.first} to be ${what}, got ${describe(work)}`));
      }
      try {
        failureScope.enter(routeOf, work);
        try {
          next(work, expectEmission);
        } finally {
          failureScope.leave();
        }
      } catch (error) {
        fail(work, error, naming.name);
      }
    },
    error: (error) => subscriber.error(error),
    complete: () => {
      sourceDone = true;
      if (pending === 0) subscriber.complete();
    },
  });
}

/**
 * The same envelope, typed as the operator's output: with the slots it has just attached. Types
 * only: an operator attaches at run time what its output type says.
 */
export function attached<O extends AnyWork>(work: AnyWork): O {
  return work as O;
}

/**
 * The emissions of one operator's subscription that wait for their values' device work, made once
 * per subscription so that a value costs no closure on its way: {@link emit} emits `work` on the
 * main thread once its device work so far has finished (the stream's error instead, if one
 * stopped it or its device broke meanwhile: see PoolEngine.faultOf for a pool that goes on without
 * a broken device), holding the value until then. `prepare(work, arg)` runs just before the
 * emission, for operators that attach results, with what it needs of the value in `arg`;
 * `later(work, arg, ready, fail)` instead, for results copied in host memory off the main thread: it
 * calls `ready` once they are attached, or `fail` with what stopped it. What either throws or
 * fails with, or the emission throws, errors the subscriber, as a PipelineError of `name` and the value.
 */
/** Attaches a value's results off the main thread, then calls `ready`, or `fail` with what stopped it. */
type Later<W, A> = (work: W, arg: A, ready: () => void, fail: (error: unknown) => void) => void;

export class WhenDone<O extends AnyWork, W extends AnyWork = AnyWork, A = undefined> {
  readonly #name: string;
  readonly #subscriber: Subscriber<O>;
  readonly #prepare: ((work: W, arg: A) => void) | undefined;
  readonly #later: Later<W, A> | undefined;
  /** What marks a pending emission made: one function for the whole subscription (see operate). */
  #settle: () => void = () => {};
  readonly #done = (work: AnyWork, error: CudaError | undefined, arg: unknown) => this.#completed(work as W, error, arg as A);

  constructor(
    name: string,
    subscriber: Subscriber<O>,
    prepare?: (work: W, arg: A) => void,
    later?: Later<W, A>,
  ) {
    this.#name = name;
    this.#subscriber = subscriber;
    this.#prepare = prepare;
    this.#later = later;
  }

  /** Emits `work` once its device work so far has finished; `expectEmission` is operate's. */
  emit(work: W, expectEmission: () => () => void, arg?: A): void {
    this.#settle = expectEmission();
    waitForValue(work, this.#done, arg);
    holdValue(work);
  }

  #completed(work: W, reported: CudaError | undefined, arg: A): void {
    const subscriber = this.#subscriber;
    // A device broken meanwhile fails the value, whatever the notification reported.
    const error = reported ?? work.stream.device.poisoned;
    if (error || subscriber.closed) return letGo(this.#name, work, subscriber, this.#settle, error);
    try {
      if (this.#later) return this.#later(work, arg, () => emitFenced(this.#name, work, subscriber, this.#settle), (error) => this.#failed(work, error));
      this.#prepare?.(work, arg);
    } catch (thrown) {
      return this.#failed(work, thrown);
    }
    emitFenced(this.#name, work, subscriber, this.#settle);
  }

  /** Fails the value with what its results' code threw or failed with, and lets it go. */
  #failed(work: W, thrown: unknown): void {
    failed(this.#name, work, this.#subscriber, thrown);
    releaseValue(work);
    this.#settle();
  }
}

/** What the operator's own code threw for the value: a PipelineError of it, as operate's. */
function failed(name: string, work: AnyWork, subscriber: Subscriber<never>, thrown: unknown): void {
  if (subscriber.closed) return;
  const failure = settleFailure(work, new PipelineError(name, work.index, thrown));
  if (failure !== undefined) subscriber.error(failure);
}

/** Errors the subscriber with `error` (unless it has ended), and lets the value go. */
function letGo(name: string, work: AnyWork, subscriber: Subscriber<never>, settle: () => void, error: unknown): void {
  if (error && !subscriber.closed) {
    const failure = new PipelineError(name, work.index, error);
    const out = settleFailure(work, failure);
    if (out !== undefined) subscriber.error(out === failure ? error : out);
  }
  releaseValue(work);
  settle();
}

/** Emits the value, and lets it go: its place in flight frees now, or behind what the emission enqueued. */
function emitFenced<O extends AnyWork>(name: string, work: AnyWork, subscriber: Subscriber<O>, settle: () => void): void {
  const mark = work.stream.engine.given;
  try {
    if (!subscriber.closed) subscriber.next(attached(work));
  } catch (thrown) {
    failed(name, work, subscriber, thrown);
  }
  try {
    // What the emission enqueued (for this value, on its lane) is to finish before the value's place frees.
    if (work.stream.engine.given === mark) releaseValue(work);
    else releaseValueWhenDone(work);
  } catch {
    releaseValue(work); // the device broke: nothing more of it runs, nor will it tell
  } finally {
    settle();
  }
}
