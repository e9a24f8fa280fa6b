// Pre-launch hooks: functions called with the launch context just before a launch is enqueued,
// in three scopes (global, per kernel, per pipeline), which may replace the launch's arguments or
// kernel. Their engine (kernels/launch-hooks.ts) calls them and checks what they return.
import { RxcudaError, describe } from '../base/errors.js';
import { globalHooks } from '../kernels/launch-hooks.js';
import type { LaunchContext } from './launch-context.js';
import type { Kernel, KernelArgs, Signature } from './kernel.js';

/** What a hook may return instead of nothing: replacement arguments, or a replacement kernel. */
export interface LaunchOverride<S extends Signature = Signature> {
  /** Arguments to launch with instead; checked like any launch's. */
  readonly args?: KernelArgs<S>;
  /** A kernel of the same signature and device to launch instead. */
  readonly kernel?: Kernel<S>;
}

/**
 * A pre-launch hook. It is called synchronously, just before the launch is enqueued, with the
 * launch's context (also `currentLaunch()` inside it), and may return a {@link LaunchOverride}.
 *
 * A hook must not enqueue work on the launching stream: it runs before the launch is enqueued,
 * so that work would come before the launch the caller asked for first, and a launch from it
 * would run the hooks again. Launches on other streams are fine; their hooks run nested, and the
 * outer context is current again when they return.
 */
export type LaunchHook<S extends Signature = Signature> = (context: LaunchContext<S>) => LaunchOverride<S> | void;

/** Undoes a registration: call it, or let `using` dispose of it. Calling it again does nothing. */
export interface Disposer {
  (): void;
  /**
   * The same as calling it, for `using`.
   * @example
   * {
   *   using trace = onLaunch((launch) => console.log(`${launch}`));
   *   stream.launch(kernel, config, args); // traced
   * } // unregistered here
   */
  [Symbol.dispose](): void;
}

/** A hook that threw, or returned what a hook may not: the launch was not enqueued. */
export class LaunchHookError extends RxcudaError {
  /** The class's name, `LaunchHookError`. */
  override readonly name = 'LaunchHookError';
  /** The hook's function name, or '(anonymous)'. */
  readonly hook: string;
  /** The launch it ran for. */
  readonly context: LaunchContext;

  constructor(hook: string, context: LaunchContext, cause: unknown) {
    const why = cause instanceof Error ? cause.message : describe(cause);
    super(`Pre-launch hook ${hook} failed for kernel '${context.kernel.name}', so nothing was enqueued: ${why}\n  launch: ${context}`, undefined, { cause });
    this.hook = hook;
    this.context = context;
  }
}

/**
 * Registers a hook called before every launch (on any device), first of the three scopes: global
 * hooks, then the kernel's (`kernel.onLaunch`), then the pipeline's (the `launch` operator's
 * `hooks`), each in registration order. A hook that throws fails that launch with a
 * {@link LaunchHookError}, and nothing is enqueued.
 * @example
 * using trace = onLaunch((launch) => console.log(`${launch}`));
 * @param hook the hook.
 * @returns a disposer that unregisters it.
 * @throws TypeError when `hook` is not a function.
 */
export function onLaunch(hook: LaunchHook): Disposer {
  return globalHooks.add(hook);
}
