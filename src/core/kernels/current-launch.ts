// The launch current for the code acting on its behalf (see currentLaunch in api/launch-context.ts):
// for synchronous code (hooks) a variable, which costs nothing to set around a hook; for
// asynchronous code that began inside one (a specializer or CPU implementation that awaits) an
// AsyncLocalStorage, which carries the launch across `await`.
import { AsyncLocalStorage } from 'node:async_hooks';

/** A launch's context, as this file keeps it (a LaunchContext). */
type Launch = object;

let synchronous: Launch | undefined;
const acrossAwait = new AsyncLocalStorage<Launch>();

/** The current launch's context, or undefined outside one. */
export function current(): Launch | undefined {
  return synchronous ?? acrossAwait.getStore();
}

/** Makes `context` current for synchronous code; give what it returns to {@link leaveLaunch}. */
export function enterLaunch(context: Launch): Launch | undefined {
  const outer = synchronous;
  synchronous = context;
  return outer;
}

/** Makes the launch that was current before {@link enterLaunch} current again. */
export function leaveLaunch(outer: Launch | undefined): void {
  synchronous = outer;
}

/**
 * Runs `fn` with `context` current; with `acrossAwaits`, also in the asynchronous work
 * `fn` starts (it costs more: specializers and CPU implementations only).
 */
export function withLaunch<R>(context: Launch, fn: () => R, acrossAwaits = false): R {
  if (acrossAwaits) return acrossAwait.run(context, () => withLaunch(context, fn));
  const outer = synchronous;
  synchronous = context;
  try {
    return fn();
  } finally {
    synchronous = outer;
  }
}
