import type { OperatorFunction, Subscriber } from 'rxjs';
import { Kernel, type ArgOf, type KernelArgs, type Signature } from '../core/api/kernel.js';
import type { LaunchHook } from '../core/api/launch-hooks.js';
import type { LaunchExtras } from '../core/kernels/kernel-engine.js';
import { hooksOf, type LaunchHooks } from '../core/kernels/launch-hooks.js';
import { isArray, isInstance, typeError } from '../core/base/errors.js';
import { checkOptions } from '../core/base/options.js';
import { LaunchConfig, type LaunchOptions } from '../core/kernels/launch-config.js';
import { checkArgument, wrongArgCount } from '../core/kernels/packer.js';
import { stepOperator, type Step } from './pipeline/step-run.js';
import { PipelineError, type AnyWork, type Work, isTimed, stageWork } from './pipeline/work.js';
import type { NamedIn, With } from './pipeline/slots.js';

/** One argument of a {@link launch} with arguments given once: the argument itself, or a function of the value that gives it. */
export type ValueArg<P, W> = ArgOf<P> | ((work: W) => ArgOf<P>);

/** The arguments of a {@link launch} with arguments given once: one {@link ValueArg} per parameter of signature `S`. */
export type ValueArgs<S extends Signature, W> = { readonly [K in keyof S]: ValueArg<S[K], W> };

/** What each of the arguments `A` gives a launch: a function's result, or the argument itself. */
export type GivenArgs<A> = { readonly [K in keyof A]: A[K] extends (work: never) => infer X ? X : A[K] };

/** A launch configuration, or a function of the value that gives one. */
export type ValueConfig<W> = LaunchConfig | LaunchOptions | ((work: W) => LaunchConfig | LaunchOptions);

/**
 * Launches `kernel` for each value on its lane, with the configuration and arguments that
 * `configure` returns for the value, and re-emits the value at once. Each value's call makes an
 * object and an argument array: where only some arguments depend on the value, give the
 * configuration and the arguments once instead (the other form, below), whose plain launches
 * allocate nothing per value.
 *
 * @example
 * launch(scale, (w) => ({ config: { grid: w.value.blocks, block: 256 }, args: [w.buffers.input, 2, n] }))
 *
 * @param kernel the kernel to launch.
 * @param configure the launch configuration and arguments for a value. The arrays among the
 * arguments made with `work.device(dtype, length, name)` are typed as `work.buffers[name]` after
 * this operator.
 * @param options `hooks`: pre-launch hooks of this pipeline, called after the global and the
 * kernel's (see {@link onLaunch}).
 * @returns an operator that re-emits each {@link Work} after enqueuing the launch.
 * @throws PipelineError (to the subscriber) with the kernel's name and the value's index when
 * `configure` throws, the arguments are refused, a hook fails (a LaunchHookError as its cause),
 * the launch fails (on the host device, also when the kernel's CPU implementation throws), or the
 * kernel's specialization does not compile; nothing is enqueued for that value. TypeError (at
 * once) for a non-kernel or a `configure` that is not a function.
 * @see Stream.launch
 */
export function launch<T, B, R, S extends Signature, const A extends KernelArgs<S>>(
  kernel: Kernel<S>,
  configure: (work: Work<T, B, R>) => { readonly config: LaunchConfig | LaunchOptions; readonly args: A },
  options?: LaunchOperatorOptions<S>,
): OperatorFunction<Work<T, B, R>, Work<T, With<B, NamedIn<A>>, R>>;
/**
 * Launches `kernel` for each value on its lane and re-emits the value at once, with a
 * configuration and arguments given once: in the place of each argument that depends on the
 * value, a function that gives it. rxcuda calls those functions for each value, into an argument
 * list of the operator's own, so that the operator allocates nothing for a value's plain launch
 * (one without hooks, a template's kernel or a Timeline): the form for pipelines of many small
 * values. The list is copied when the operator is made (changing `args` later changes nothing),
 * and the arguments given as they are are checked then. For each value the configuration's
 * function is called first, then the arguments' in their order, each with the value alone (no
 * `this`).
 *
 * @example
 * launch(scale, { grid: 64, block: 256 }, [(w) => w.buffers.input, 2, n])
 * // an output array made by name is `w.buffers.gray` for the operators after this one:
 * launch(toGray, config, [(w) => w.buffers.input, (w) => w.device('u8', n, 'gray'), n])
 * // a configuration of the value's own:
 * launch(scale, (w) => ({ grid: w.value.blocks, block: 256 }), [(w) => w.buffers.input, 2, n])
 *
 * @param kernel the kernel to launch.
 * @param config the launch configuration, checked now, or a function that gives it for a value.
 * @param args one per parameter: the argument, or a function that gives it for a value. The
 * arrays these functions make with `work.device(dtype, length, name)` are typed as
 * `work.buffers[name]` after this operator.
 * @param options `hooks`: pre-launch hooks of this pipeline, called after the global and the
 * kernel's (see {@link onLaunch}); a hook's context holds the value's own arguments.
 * @returns an operator that re-emits each {@link Work} after enqueuing the launch.
 * @throws PipelineError (to the subscriber) with the kernel's name and the value's index when a
 * function given throws, the arguments are refused, a hook fails (a LaunchHookError as its
 * cause), the launch fails (on the host device, also when the kernel's CPU implementation
 * throws), or the kernel's specialization does not compile; nothing is enqueued for that value.
 * TypeError (at once) for a non-kernel, `args` that are not one per parameter, or an argument
 * given as it is that the kernel would refuse (RangeError for a number out of its type's range);
 * RangeError or TypeError (at once) for a `config` that is not a launch configuration (what the
 * device allows, such as its largest block, is checked at the first launch on it).
 * @see Stream.launch
 */
export function launch<T, B, R, S extends Signature, const A extends ValueArgs<S, Work<T, B, R>>>(
  kernel: Kernel<S>,
  config: ValueConfig<Work<T, B, R>>,
  args: A,
  options?: LaunchOperatorOptions<S>,
): OperatorFunction<Work<T, B, R>, Work<T, With<B, NamedIn<GivenArgs<A>>>, R>>;
export function launch<S extends Signature>(
  kernel: Kernel<S>,
  first: ValueConfig<AnyWork> | ((work: AnyWork) => { readonly config: LaunchConfig | LaunchOptions; readonly args: KernelArgs<S> }),
  second?: readonly unknown[] | LaunchOperatorOptions<S>,
  third?: LaunchOperatorOptions<S>,
): OperatorFunction<AnyWork, AnyWork> {
  if (!isInstance(kernel, Kernel)) typeError('kernel', 'a Kernel', kernel);
  const given = isArray(second);
  if (!given) {
    // Arguments that are not an array, after a configuration or beside options: say so, not that
    // a configuration is not a function.
    if ((typeof first !== 'function' && second !== undefined) || ArrayBuffer.isView(second) || third !== undefined)
      typeError('args', 'an array of kernel arguments', second);
    if (typeof first !== 'function') typeError('configure', 'a function, or a launch configuration followed by the arguments', first);
  }
  const options = given ? third : second; // null is refused, as it is everywhere options are taken
  checkOptions('options', options, ['hooks']);
  const name = `launch(${kernel.name})`;
  const hooks = hooksOf((options as LaunchOperatorOptions<S> | undefined)?.hooks);
  // Plain launches take the fast path; a context is made only for hooks and specializations.
  const contextual = hooks !== undefined || kernel.engine.specialized;
  const launchOne: LaunchOne<S> = (work, config, args, subscriber) => {
    if (subscriber.closed) return; // a value started by the functions above failed the pipeline
    const extras = contextual ? extrasOf(name, hooks, work, subscriber) : undefined;
    if (isTimed(work)) launchTimed(work, kernel, config, args, extras);
    else kernel.engine.launchOn(work.stream, config, args, extras);
  };
  const step: Step<AnyWork> = given
    ? argumentsGivenOnce(kernel, first as ValueConfig<AnyWork>, second as readonly unknown[], launchOne)
    : (work, subscriber) => {
        const made = (first as (work: AnyWork) => { config: LaunchConfig | LaunchOptions; args: KernelArgs<S> } | undefined)(work);
        if (typeof made !== 'object' || made === null || !isArray(made.args))
          typeError('configure(work)', '{ config, args } (a function that gives the configuration alone takes the arguments after it)', made);
        launchOne(work, made.config, made.args, subscriber);
      };
  return stepOperator(name, step);
}

/**
 * The step of a launch whose configuration and arguments were given once: the functions among
 * them are called for each value, into one argument list of the operator's, reused from value to
 * value (every path that keeps a launch's arguments past the call copies them: a queued launch,
 * a recording, a launch context). A function that starts another value of the same operator
 * while this one's list is being filled gets a list of its own.
 */
function argumentsGivenOnce<S extends Signature>(
  kernel: Kernel<S>,
  config: ValueConfig<AnyWork>,
  args: readonly unknown[],
  launchOne: LaunchOne<S>,
): Step<AnyWork> {
  const signature = kernel.signature;
  if (args.length !== signature.length) wrongArgCount(signature, args);
  const configOf = typeof config === 'function' ? config : undefined;
  const fixed = typeof config === 'function' ? undefined : LaunchConfig.from(config); // checked now, the device's limits at its first launch
  const list = Array.from(args); // a hole becomes undefined, refused below
  const at: number[] = [];
  const of: ((work: AnyWork) => unknown)[] = [];
  list.forEach((arg, i) => {
    if (typeof arg === 'function') at.push(i), of.push(arg as (work: AnyWork) => unknown);
    else checkArgument(signature, kernel.device.engine, i, arg); // what would fail every value fails now
  });
  let filling = 0;
  return (work, subscriber) => {
    // The configuration first: a function of it that throws leaves nothing taken for the value.
    const valueConfig = configOf ? configOf(work) : fixed!;
    const own = filling === 0 ? list : list.slice();
    filling++;
    try {
      for (let k = 0; k < at.length; k++) {
        const argOf = of[k]!; // called on its own: its `this` is not the operator's list
        own[at[k]!] = argOf(work);
      }
      launchOne(work, valueConfig, own as unknown as KernelArgs<S>, subscriber);
    } finally {
      filling--;
      // The list keeps no value's memory past its launch.
      if (own === list) for (let k = 0; k < at.length; k++) list[at[k]!] = undefined;
    }
  };
}

/** One value's launch with its configuration and arguments; failures found later go to `subscriber`. */
type LaunchOne<S extends Signature> = (work: AnyWork, config: LaunchConfig | LaunchOptions, args: KernelArgs<S>, subscriber: Subscriber<unknown>) => void;

/**
 * What a launch with hooks or of a specialized kernel adds: the hooks, and where a failure found
 * after the call goes (made here, so that a plain launch's function makes no closure context).
 */
function extrasOf(name: string, hooks: LaunchHooks | undefined, work: AnyWork, subscriber: Subscriber<unknown>): LaunchExtras {
  return { hooks, onFailure: (error) => subscriber.error(new PipelineError(name, work.index, error)) };
}

/** A timed value's launch, as the stage named after the kernel. */
function launchTimed<S extends Signature>(work: AnyWork, kernel: Kernel<S>, config: LaunchConfig | LaunchOptions, args: KernelArgs<S>, extras: LaunchExtras | undefined): void {
  stageWork(work, kernel.name, () => kernel.engine.launchOn(work.stream, config, args, extras));
}

/** Options for {@link launch}. */
export interface LaunchOperatorOptions<S extends Signature> {
  /** Pre-launch hooks of this pipeline, called after the global and the kernel's, in this order. */
  readonly hooks?: readonly LaunchHook<S>[];
}
