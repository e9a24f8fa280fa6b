// The body of a conditional node that a pipeline operator records for one value under `replay`
// (operators/device-control.ts): the device work the value's body operators give its stream, in
// order, each node after the one before. A body holds kernels, copies, fills and library calls;
// a host step, an event, a wait for the stream or a native host function there is refused.
import { GraphError } from '../base/errors.js';
import { GraphCondition, type ConditionScope, makeGraphCondition } from '../device/condition.js';
import { GraphRecorder } from './capture.js';
import type { BodyWorks, NodeWork } from './node-work.js';

const scopes = new WeakMap<object, ValueScope>();

/**
 * The scope of the conditions a value's recording makes (for a graph made later): one per value,
 * whose conditions are named by the order they were made in, as a graph's are, so that the next
 * value's pair up with them when its work updates an executable.
 */
export class ValueScope implements ConditionScope {
  readonly root: ConditionScope = this;
  readonly parent = undefined;
  readonly closed = false;
  #made = 0;

  private constructor() {}

  /** The scope of `value`'s conditions. */
  static of(value: object): ValueScope {
    let scope = scopes.get(value);
    if (scope === undefined) scopes.set(value, (scope = new ValueScope()));
    return scope;
  }

  /** The value's next condition, initially 0. */
  condition(): GraphCondition {
    return makeGraphCondition(this, 0, this.#made++);
  }
}

/** What a body's operators give the stream while it is recorded. */
export class BodyRecording extends GraphRecorder {
  readonly #works: NodeWork[] = [];
  readonly #what: string;

  /** @param what how refusals name the operator, e.g. `loopOnDevice's body`. */
  constructor(what: string) {
    super();
    this.#what = what;
  }

  /** The body, for its conditional node. */
  seal(): BodyWorks {
    const works = Object.freeze(this.#works.slice());
    return Object.freeze({ graph: this, works, deps: Object.freeze(works.map((_, i) => Object.freeze(i === 0 ? [] : [i - 1]))) });
  }

  protected add(work: NodeWork): void {
    if (work.kind === 'hostFunction') this.#refuse('A native host function');
    this.#works.push(work);
  }

  record(): boolean {
    return this.#refuse('An event record');
  }

  wait(): boolean {
    return this.#refuse('An event wait');
  }

  step(_run: () => unknown, name: string): boolean {
    return this.#refuse(`A host step (${name})`);
  }

  interrupt(what: string): never {
    return this.#refuse(what);
  }

  allocation(): never {
    return this.#refuse('An allocation on the stream (take the value\'s buffers before the operator)');
  }

  beforeRun(): void {}

  #refuse(what: string): never {
    throw new GraphError('body', `${what} cannot be in ${this.#what}: the device runs it, without JavaScript or waits`);
  }
}
