// The one subscription shape every operator shares: values in, errors and completion passed on,
// and every throw of the operator's own code turned into a PipelineError for the subscriber.
import type { Observable, Subscriber } from 'rxjs';
import { CudaError, describe, isInstance } from '../../core/base/errors.js';
import { routingFailures } from '../../core/queue/failure-route.js';
import { PipelineError, Work, type AnyWork } from './work.js';

/**
 * Subscribes `subscriber` to `source`, calling `next` for each value. An operator that emits
 * after device work calls `owe()` for each emission it owes, and the function that returns once
 * it has made it; the subscriber completes only when the source has and nothing is owed. What `next` enqueues that fails later
 * (a CPU kernel that throws, a step that times out, a queued command the driver refuses) reaches
 * the subscriber as a PipelineError of this operator and value, not the stream's `error` event.
 * Once the pipeline has ended (an error, completion or unsubscribing), such failures of its
 * values still in flight are let go: they follow from its end, and nobody waits for them (a
 * lane's stream of a pipeline's own pool has nobody to listen either).
 * A value that is not a {@link Work} envelope (no `onStreams`, `lanesFrom` or `framesFrom`
 * upstream) errors the subscriber with a TypeError that says so.
 */
export function operate<W extends AnyWork, O>(
  name: string,
  source: Observable<W>,
  subscriber: Subscriber<O>,
  next: (work: W, owe: () => () => void) => void,
) {
  let owing = 0;
  let sourceDone = false;
  const owe = () => {
    owing++;
    return () => {
      owing--;
      if (sourceDone && owing === 0) subscriber.complete();
    };
  };
  return source.subscribe({
    next: (work) => {
      if (!isInstance(work, Work)) {
        const what = 'a Work envelope: put onStreams, lanesFrom or framesFrom before it';
        return subscriber.error(new TypeError(`Expected the values of ${name} to be ${what}, got ${describe(work)}`));
      }
      const fail = (error: unknown) => {
        if (subscriber.closed) return true; // the pipeline has ended: see above
        const failure = work.settle(new PipelineError(name, work.index, error));
        if (failure !== undefined) subscriber.error(failure);
        return true;
      };
      try {
        routingFailures(fail, () => next(work, owe));
      } catch (error) {
        fail(error);
      }
    },
    error: (error) => subscriber.error(error),
    complete: () => {
      sourceDone = true;
      if (owing === 0) subscriber.complete();
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
 * Emits `work` on the main thread once its device work so far has finished (the stream's error
 * instead, if one stopped it or its device broke meanwhile: see LanePool.faultOf for a pool
 * that goes on without a broken device), holding the value until then. `prepare` runs just before the
 * emission, for operators that attach results; `prepareLater` instead, for results that take
 * host work off the main thread: it calls `ready` when they are attached, or `fail` with what
 * stopped it (the value then fails as a PipelineError of this operator).
 */
export function emitWhenDone<O extends AnyWork>(
  name: string,
  work: AnyWork,
  subscriber: Subscriber<O>,
  owe: () => () => void,
  prepare?: () => void,
  prepareLater?: (ready: () => void, fail: (error: unknown) => void) => void,
): void {
  const settle = owe();
  const emit = () => {
    const mark = work.stream.lane.given;
    if (!subscriber.closed) subscriber.next(attached(work));
    // The value's work is done: its place in flight frees now, unless what the emission enqueued
    // (for this value, on its lane) is still to finish.
    if (work.stream.lane.given === mark) work.release();
    else work.releaseWhenDone();
    settle();
  };
  /** Fails the value with `error` (when the pipeline is still on) instead of emitting it. */
  const fail = (error: unknown) => {
    if (!subscriber.closed) {
      const failure = new PipelineError(name, work.index, error);
      const out = work.settle(failure);
      if (out !== undefined) subscriber.error(out === failure && isInstance(error, CudaError) ? error : out);
    }
    work.release();
    settle();
  };
  work.hold(() => work.stream.onDoneWatched((reported) => {
    // A device broken meanwhile fails the value, whatever the notification reported.
    const error = reported ?? work.stream.device.poisoned;
    if (error) return fail(error);
    if (subscriber.closed) {
      work.release();
      settle();
      return;
    }
    if (prepareLater) return prepareLater(() => {
      try {
        emit();
      } catch (thrown) {
        subscriber.error(thrown);
      }
    }, fail);
    prepare?.();
    emit();
  }, work.lane.pool.spin));
}
