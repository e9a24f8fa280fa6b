// Pre-launch hooks: functions called with the launch context just before a launch is enqueued,
// in three scopes (global, per kernel, per pipeline), which may replace the launch's arguments or
// kernel. With no hook registered, a launch never reaches this file.
import { ArgumentRangeError, ArgumentTypeError, RxcudaError, describe, elementsOf, isArray, nameOf, typeError } from '../base/errors.js';
import { enterLaunch, leaveLaunch } from '../kernels/current-launch.js';
import { LaunchContext } from './launch-context.js';
import type { Kernel, KernelArgs, Signature } from './kernel.js';
import { describeParam } from '../kernels/packer.js';

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
 * The hooks of a pipeline's `hooks` option, registered in their order, or undefined for none.
 * @throws TypeError naming `hooks` for anything but an array, and `hooks[i]` for an element (a
 * hole included) that is not a function.
 */
export function hooksOf(given: unknown): LaunchHooks | undefined {
  if (given === undefined) return undefined;
  if (!isArray(given)) typeError('hooks', 'an array of hook functions', given);
  const list = elementsOf(given);
  list.forEach((hook, i) => void (typeof hook !== 'function' && typeError(`hooks[${i}]`, 'a function', hook)));
  if (list.length === 0) return undefined;
  const hooks = new LaunchHooks();
  for (const hook of list) hooks.add(hook as LaunchHook);
  return hooks;
}

/** Hooks of one scope, called in registration order. */
export class LaunchHooks {
  #hooks: readonly LaunchHook[] = [];
  /** How many hooks are registered: a field, which the launch fast path reads. */
  size = 0;
  /** Called with the change in the number of hooks. */
  readonly #counted: ((delta: number) => void) | undefined;

  constructor(counted?: (delta: number) => void) {
    this.#counted = counted;
  }

  /** Registers `hook`; the disposer unregisters it. */
  add(hook: LaunchHook): Disposer {
    if (typeof hook !== 'function') throw new ArgumentTypeError(`Expected \`hook\` to be a function, got ${describe(hook)}`);
    this.#hooks = [...this.#hooks, hook]; // a launch in progress keeps the list it began with
    this.size++;
    this.#counted?.(1);
    let registered = true;
    const dispose = () => {
      if (!registered) return;
      registered = false;
      this.#hooks = this.#hooks.filter((h) => h !== hook);
      this.size--;
      this.#counted?.(-1);
    };
    return Object.assign(dispose, { [Symbol.dispose]: dispose });
  }

  /** Calls each hook with the context so far; returns the context with their replacements. */
  run<S extends Signature>(context: LaunchContext<S>): LaunchContext<S> {
    for (const hook of this.#hooks) {
      const outer = enterLaunch(context);
      try {
        const result = (hook as LaunchHook<S>)(context);
        if (result !== undefined) context = applyOverride(context, result);
      } catch (error) {
        throw new LaunchHookError(nameOf(hook), context, error);
      } finally {
        leaveLaunch(outer);
      }
    }
    return context;
  }
}

function applyOverride<S extends Signature>(context: LaunchContext<S>, result: unknown): LaunchContext<S> {
  if (typeof result !== 'object' || result === null || typeof (result as PromiseLike<unknown>).then === 'function')
    throw new ArgumentTypeError(`Expected the hook to return nothing or { args, kernel } synchronously, got ${describe(result)}`);
  const { args, kernel } = result as LaunchOverride<S>;
  if (args !== undefined && !Array.isArray(args)) throw new ArgumentTypeError(`Expected \`args\` to be an array of kernel arguments, got ${describe(args)}`);
  if (kernel !== undefined) {
    const expected = context.kernel.signature.map(describeParam).join(', ');
    const given = (kernel as Kernel<Signature> | null)?.signature?.map?.(describeParam).join(', ');
    if (given !== expected) throw new ArgumentTypeError(`Expected \`kernel\` to be a kernel of signature [${expected}], got ${describe(kernel)}`);
    if (kernel.device !== context.stream.device) throw new ArgumentRangeError(`Expected \`kernel\` to be a kernel of ${context.stream.device}, got one of ${kernel.device}`);
  }
  return context.with({ ...(kernel && { kernel }), ...(args && { args }) });
}

/** Hooks registered with {@link onLaunch}, for every launch of this thread. */
export const globalHooks = new LaunchHooks();

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
