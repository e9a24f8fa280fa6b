// The engine of pre-launch hooks, below the public ones (api/launch-hooks.ts: onLaunch, LaunchHook,
// LaunchHookError): the hooks of one scope (global, a kernel's, a pipeline's), called in
// registration order with a launch's context, and what each returns checked and applied. It names
// the context by what it needs of it, and is handed how to word a hook's failure. With no hook
// registered, a launch never reaches this file.
import { ArgumentRangeError, ArgumentTypeError, describe, elementsOf, isArray, nameOf, typeError } from '../base/errors.js';
import { enterLaunch, leaveLaunch } from './current-launch.js';
import type { Signature } from './kernel-types.js';
import { describeParam } from './packer.js';

/** A kernel as a hook's replacement is checked against the launch's (a public Kernel is one). */
export interface HookedKernel {
  readonly signature: Signature;
  /** Compared with the launch's stream's device, and named in messages. */
  readonly device: object;
}

/**
 * A launch's context as its hooks need it (a public LaunchContext is one): `with` makes the same
 * launch with a hook's replacements.
 */
export interface HookedLaunch<C> {
  readonly kernel: HookedKernel;
  readonly stream: { readonly device: object };
  with(changes: { readonly kernel?: HookedKernel; readonly args?: readonly unknown[] }): C;
}

/** A hook as a scope keeps it: a function of the context its launches make (a LaunchHook is one). */
export type Hook = (context: never) => unknown;

/** The error of a hook (or a specializer) named `hook` that failed for `context`: a LaunchHookError. */
export type HookFailure<C> = (hook: string, context: C, cause: unknown) => Error;

/** Undoes a registration when called or disposed of (a public Disposer is one). */
export type HookDisposer = (() => void) & { [Symbol.dispose](): void };

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
  for (const hook of list) hooks.add(hook as Hook);
  return hooks;
}

/** Hooks of one scope, called in registration order. */
export class LaunchHooks {
  #hooks: readonly Hook[] = [];
  /** How many hooks are registered: a field, which the launch fast path reads. */
  size = 0;
  /** Called with the change in the number of hooks. */
  readonly #counted: ((delta: number) => void) | undefined;

  constructor(counted?: (delta: number) => void) {
    this.#counted = counted;
  }

  /** Registers `hook`; the disposer unregisters it. */
  add(hook: Hook): HookDisposer {
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

  /**
   * Calls each hook with the context so far; returns the context with their replacements.
   * @throws what `failed` makes of a hook that threw or returned what a hook may not.
   */
  run<C extends HookedLaunch<C>>(context: C, failed: HookFailure<C>): C {
    for (const hook of this.#hooks) {
      const outer = enterLaunch(context);
      try {
        const result = (hook as (context: C) => unknown)(context); // its registrar's launches make C
        if (result !== undefined) context = applyOverride(context, result);
      } catch (error) {
        throw failed(nameOf(hook), context, error);
      } finally {
        leaveLaunch(outer);
      }
    }
    return context;
  }
}

function applyOverride<C extends HookedLaunch<C>>(context: C, result: unknown): C {
  if (typeof result !== 'object' || result === null || typeof (result as PromiseLike<unknown>).then === 'function')
    throw new ArgumentTypeError(`Expected the hook to return nothing or { args, kernel } synchronously, got ${describe(result)}`);
  const { args, kernel } = result as { readonly args?: readonly unknown[]; readonly kernel?: HookedKernel };
  if (args !== undefined && !Array.isArray(args)) throw new ArgumentTypeError(`Expected \`args\` to be an array of kernel arguments, got ${describe(args)}`);
  if (kernel !== undefined) {
    const expected = context.kernel.signature.map(describeParam).join(', ');
    const given = (kernel as HookedKernel | null)?.signature?.map?.(describeParam).join(', ');
    if (given !== expected) throw new ArgumentTypeError(`Expected \`kernel\` to be a kernel of signature [${expected}], got ${describe(kernel)}`);
    if (kernel.device !== context.stream.device) throw new ArgumentRangeError(`Expected \`kernel\` to be a kernel of ${context.stream.device}, got one of ${kernel.device}`);
  }
  return context.with({ ...(kernel && { kernel }), ...(args && { args }) });
}

/** The hooks registered with onLaunch (api/launch-hooks.ts), for every launch of this thread. */
export const globalHooks = new LaunchHooks();
