// Operators that do their work for a value at once and pass it on (an upload, a launch, a library
// call) are steps. Steps applied one after another make one run: one subscription whose `next`
// takes a value through every step in order, where a subscription per operator would pass the
// value down a chain of subscribers (RxJS's `next`, the envelope's check and the failure route,
// once per operator and value). A value goes through the same work in the same order either way,
// and a failure names the operator whose step failed, as it would alone.
import { Observable, type OperatorFunction, type Subscriber } from 'rxjs';
import { failureScope } from '../../core/queue/failure-route.js';
import { operateNamed } from './operate.js';
import type { AnyWork } from './work.js';

/**
 * An operator's work for one value: enqueued at once, or thrown. `subscriber` is the run's
 * (for failures found later, such as a specialization that does not compile).
 */
export type Step<W extends AnyWork> = (work: W, subscriber: Subscriber<unknown>) => void;

/** Steps applied one after another to `upstream`: one subscription serves them all. */
class StepRun extends Observable<AnyWork> {
  readonly upstream: Observable<AnyWork>;
  readonly names: readonly string[];
  readonly steps: readonly Step<AnyWork>[];

  constructor(upstream: Observable<AnyWork>, names: readonly string[], steps: readonly Step<AnyWork>[]) {
    super((subscriber) => runSteps(upstream, subscriber, names, steps));
    this.upstream = upstream;
    this.names = names;
    this.steps = steps;
  }
}

function runSteps(upstream: Observable<AnyWork>, subscriber: Subscriber<AnyWork>, names: readonly string[], steps: readonly Step<AnyWork>[]) {
  // The step running now names a failure (operate reads it when a step throws).
  const naming = { name: names[0]!, first: names[0]! };
  return operateNamed(naming, upstream, subscriber, (work) => {
    naming.name = naming.first;
    for (let i = 0; i < steps.length; i++) {
      if (i > 0) {
        naming.name = names[i]!;
        failureScope.renew(); // what this step enqueues fails as this step's
      }
      steps[i]!(work, subscriber);
      if (subscriber.closed) return; // a step's failure ended the pipeline
    }
    subscriber.next(work);
  });
}

/**
 * The operator `name` that does `step` for each value and passes the value on. Applied to
 * another step operator's output, it joins that operator's run instead of subscribing to it.
 */
export function stepOperator<I extends AnyWork, O extends AnyWork>(name: string, step: Step<I>): OperatorFunction<I, O> {
  const own = step as Step<AnyWork>;
  return ((source: Observable<AnyWork>) =>
    source instanceof StepRun
      ? new StepRun(source.upstream, [...source.names, name], [...source.steps, own])
      : new StepRun(source, [name], [own])) as unknown as OperatorFunction<I, O>;
}
