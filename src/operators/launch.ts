import type { OperatorFunction } from 'rxjs';
import { Kernel, type KernelArgs, type LaunchExtras, type Signature } from '../core/kernels/kernel.js';
import { LaunchHooks, type LaunchHook } from '../core/kernels/launch-hooks.js';
import { typeError } from '../core/base/errors.js';
import { checkOptions } from '../core/base/options.js';
import type { LaunchConfig, LaunchOptions } from '../core/kernels/launch-config.js';
import { stepOperator } from './pipeline/step-run.js';
import { PipelineError, type Work } from './pipeline/work.js';
import type { NamedIn, With } from './pipeline/slots.js';

/**
 * Launches `kernel` for each value on its lane, with a configuration and arguments derived from
 * the value, and re-emits the value at once.
 *
 * @example
 * launch(scale, (w) => ({ config: { grid: 64, block: 256 }, args: [w.buffers.input, 2, n] }))
 * // an output array made by name is `w.buffers.gray` for the operators after this one:
 * launch(toGray, (w) => ({ config, args: [w.buffers.input, w.device('u8', n, 'gray'), n] }))
 *
 * @param kernel the kernel to launch.
 * @param configure the launch configuration and arguments for a value. The arrays among the
 * arguments made with `work.device(dtype, length, name)` are typed as `work.buffers[name]` after
 * this operator.
 * @param options `hooks`: pre-launch hooks of this pipeline, called after the global and the
 * kernel's (see {@link onLaunch}).
 * @returns an operator that re-emits each {@link Work} after enqueuing the launch.
 * @throws PipelineError (to the subscriber) with the kernel's name and the value's index when
 * the arguments are refused, a hook fails (a LaunchHookError as its cause), the launch fails (on
 * the host device, also when the kernel's CPU implementation throws), or the kernel's
 * specialization does not compile; nothing is enqueued for that value. TypeError (at once) for a
 * non-kernel or a non-function `configure`.
 * @see Stream.launch
 */
export function launch<T, B, R, S extends Signature, const A extends KernelArgs<S>>(
  kernel: Kernel<S>,
  configure: (work: Work<T, B, R>) => { readonly config: LaunchConfig | LaunchOptions; readonly args: A },
  options: LaunchOperatorOptions<S> = {},
): OperatorFunction<Work<T, B, R>, Work<T, With<B, NamedIn<A>>, R>> {
  if (!(kernel instanceof Kernel)) typeError('kernel', 'a Kernel', kernel);
  if (typeof configure !== 'function') typeError('configure', 'a function', configure);
  checkOptions('options', options, ['hooks']);
  const name = `launch(${kernel.name})`;
  let hooks: LaunchHooks | undefined;
  for (const hook of options.hooks ?? []) (hooks ??= new LaunchHooks()).add(hook as unknown as LaunchHook);
  return stepOperator(name, (work: Work<T, B, R>, subscriber) => {
    const { config, args } = configure(work);
    // Plain launches take the fast path; a context is made only for hooks and specializations.
    const extras: LaunchExtras | undefined =
      hooks || kernel.specialized ? { hooks, onFailure: (error) => subscriber.error(new PipelineError(name, work.index, error)) } : undefined;
    if (work.timed) work.stage(kernel.name, () => kernel.launchOn(work.stream, config, args, extras));
    else kernel.launchOn(work.stream, config, args, extras);
  });
}

/** Options for {@link launch}. */
export interface LaunchOperatorOptions<S extends Signature> {
  /** Pre-launch hooks of this pipeline, called after the global and the kernel's, in this order. */
  readonly hooks?: readonly LaunchHook<S>[];
}
