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
 * (`operators/pipeline/operate.ts`), which runs each value's operator under the route to its
 * subscriber; a step of the pipeline starts the route anew (`renew`), and a queued command runs
 * under the route it was given under. Everything else only reads it: a host step or a queued
 * command captures it when it is enqueued. The route is made only when something captures it:
 * most values' work captures none, and a route made for each value and operator was garbage.
 */
class FailureScope {
  #route: FailureRoute | undefined;
  #make: ((arg: never) => FailureRoute) | undefined;
  #arg: unknown;

  /** The route in force now, made on first use within its scope. */
  current(): FailureRoute | undefined {
    if (this.#route === undefined && this.#make !== undefined) this.#route = this.#make(this.#arg as never);
    return this.#route;
  }

  /**
   * Within {@link FailureScope.run}, makes the next capture make its route again: for a run of
   * operators under one scope, whose route names the operator enqueuing when it is made.
   */
  renew(): void {
    if (this.#make !== undefined) this.#route = undefined;
  }

  /**
   * Calls `enqueue(arg)` with failures of what it enqueues (on any stream) sent to the route
   * `make(arg)`, made only if something enqueued captures it; the scope around is back when it
   * returns or throws.
   */
  run<A, T>(make: (arg: A) => FailureRoute, arg: A, enqueue: (arg: A) => T): T {
    const outer = this.#route;
    const outerMake = this.#make;
    const outerArg = this.#arg;
    this.#route = undefined;
    this.#make = make as (arg: never) => FailureRoute;
    this.#arg = arg;
    try {
      return enqueue(arg);
    } finally {
      this.#route = outer;
      this.#make = outerMake;
      this.#arg = outerArg;
    }
  }
}

/** The one failure scope of this environment (see {@link FailureScope}). */
export const failureScope = new FailureScope();

/** The route given as it is. */
const given = (to: FailureRoute): FailureRoute => to;

/** Runs `enqueue` under the route `to` as it is (see {@link FailureScope.run}). */
function routingFailures<T>(to: FailureRoute, enqueue: () => T): T {
  return failureScope.run(given, to, enqueue);
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
