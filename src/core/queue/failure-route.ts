// Where failures go that surface after their caller returned (a step that threw, a queued
// command the driver refused): to the pipeline whose operator enqueued the work, when one is in
// force, else to the stream's `error` listeners, else to a process warning.
import { describeFailure } from '../base/errors.js';
import type { Faults } from './faults.js';
import type { Command } from './scheduler.js';

/** What a stream's `error` event carries besides the error: where it came from. */
export interface HostStepContext {
  /**
   * `hostLaunch` for a host step, `onDone` for a notification, `launch` for a kernel's CPU
   * implementation on the host device, `enqueue` for device work that failed when it left the
   * stream's queue for the driver (its caller had returned long before).
   */
  readonly kind: 'hostLaunch' | 'onDone' | 'launch' | 'enqueue';
  /**
   * The function's name, or '(anonymous)'; for `launch`, the kernel's name; for `enqueue`, the
   * driver call.
   */
  readonly name: string;
}

/** Where a lane's failures go when no route takes them: its stream's `error` listeners. */
export interface ErrorListeners {
  listenerCount(event: 'error'): number;
  emit(event: 'error', error: unknown, context: HostStepContext): boolean;
}

/**
 * Where failures of the steps and queued commands enqueued while it is in force go, instead of
 * the stream's `error` event: a pipeline's subscriber. It answers false when it could not take
 * the failure; the stream's event then has it.
 */
export type FailureRoute = (error: unknown) => boolean;

/**
 * The failure route in force: a synchronous scope, like `AsyncLocalStorage.run` for the length
 * of one call and no further. Its one owner is the pipeline's operator runner
 * (`operators/pipeline/operate.ts`), which enters it around each value's operator with the route
 * to its subscriber and leaves it when the operator returns or throws; a step of the pipeline
 * starts the route anew (`renew`), and a queued command runs under the route it was given under.
 * Everything else only reads it: a host step or a queued command captures it when it is enqueued.
 * The route is made only when something captures it: most values' work captures none, and a
 * route made for each value and operator was garbage.
 */
class FailureScope {
  #route: FailureRoute | undefined;
  #make: ((arg: never) => FailureRoute) | undefined;
  #arg: unknown;
  /** The scopes around the one in force, three entries each (route, make, arg), innermost last. */
  readonly #outer: unknown[] = [];

  /** The route in force now, made on first use within its scope. */
  current(): FailureRoute | undefined {
    if (this.#route === undefined && this.#make !== undefined) this.#route = this.#make(this.#arg as never);
    return this.#route;
  }

  /**
   * Within {@link FailureScope.enter}, makes the next capture make its route again: for a run of
   * operators under one scope, whose route names the operator enqueuing when it is made.
   */
  renew(): void {
    if (this.#make !== undefined) this.#route = undefined;
  }

  /**
   * Until the matching {@link FailureScope.leave}: failures of what is enqueued (on any stream)
   * go to the route `make(arg)`, made only if something enqueued captures it. The caller leaves
   * in a `finally`, so that the scope around is back however it ends.
   */
  enter<A>(make: (arg: A) => FailureRoute, arg: A): void {
    this.#outer.push(this.#route, this.#make, this.#arg);
    this.#route = undefined;
    this.#make = make as (arg: never) => FailureRoute;
    this.#arg = arg;
  }

  /** Ends the innermost {@link FailureScope.enter}: the scope around it is in force again. */
  leave(): void {
    const outer = this.#outer;
    this.#arg = outer.pop();
    this.#make = outer.pop() as ((arg: never) => FailureRoute) | undefined;
    this.#route = outer.pop() as FailureRoute | undefined;
  }
}

/** The one failure scope of this environment (see {@link FailureScope}). */
export const failureScope = new FailureScope();

/** The route given as it is. */
const given = (to: FailureRoute): FailureRoute => to;

/** Runs `enqueue` under the route `to` as it is (see {@link FailureScope.enter}). */
function routingFailures<T>(to: FailureRoute, enqueue: () => T): T {
  failureScope.enter(given, to);
  try {
    return enqueue();
  } finally {
    failureScope.leave();
  }
}

/**
 * `command` as it must wait in a stream's queue: it runs under the route in force now, and its
 * own failure goes there too (the command itself when no route is in force).
 */
export function routedCommand(faults: Faults, command: Command): Command {
  const to = failureScope.current();
  if (!to) return command;
  const routed: Command = () => {
    try {
      return routingFailures(to, command);
    } catch (error) {
      faults.record(error);
      if (!offer(to, error)) throw error;
    }
  };
  const dropped = command.dropped;
  if (dropped) routed.dropped = (error) => routingFailures(to, () => dropped(error));
  return routed;
}

/** Hands `error` to a route; false when it did not take it. */
function offer(to: FailureRoute | undefined, error: unknown): boolean {
  if (!to) return false;
  try {
    return to(error);
  } catch {
    return false;
  }
}

/** The code of the process warning for a step failure that no `error` listener heard. */
export const STEP_FAILED_WARNING = 'RXCUDA_STEP_FAILED';

/**
 * Hands a failure to its route (a pipeline's subscriber) if it has one that takes it, else to
 * the stream's `error` listeners, or, when there are none, emits a process warning (code
 * {@link STEP_FAILED_WARNING}). Never throws: a listener that throws is reported by a warning of
 * the same code that says so, with what it threw and the failure it heard, since the stream goes on.
 */
export function reportFailure(listeners: ErrorListeners, error: unknown, context: HostStepContext, to?: FailureRoute): void {
  if (offer(to, error)) return;
  const step = `${/^[aeiou]/.test(context.kind) ? 'An' : 'A'} ${context.kind} step (${context.name}) failed`;
  let warning = `${step} and the stream has no 'error' listener: ${describeFailure(error)}`;
  try {
    if (listeners.listenerCount('error') > 0) {
      listeners.emit('error', error, context);
      return;
    }
  } catch (thrown) {
    // The listener heard the failure and threw: say so, with what it threw, and what it heard.
    warning = `${step}, and its stream's 'error' listener threw: ${describeFailure(thrown)} (the step's failure: ${describeFailure(error)})`;
  }
  try {
    process.emitWarning(warning, { type: 'RxcudaWarning', code: STEP_FAILED_WARNING });
  } catch {
    // A 'warning' machinery that throws (a monkey-patched emitWarning): nothing more can be said.
  }
}
