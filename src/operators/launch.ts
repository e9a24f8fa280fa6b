import { Observable, type OperatorFunction } from 'rxjs';
import type { Kernel, KernelArgs, Signature } from '../core/kernel.js';
import type { LaunchConfig, LaunchOptions } from '../core/launch-config.js';
import { operate } from './operate.js';
import type { Work } from './work.js';

/**
 * Launches `kernel` for each value on its lane, with a configuration and arguments derived from
 * the value, and re-emits the value at once.
 *
 * @example
 * launch(scale, (w) => ({ config: { grid: 64, block: 256 }, args: [w.buffers.input!, 2, n] }))
 *
 * @param kernel the kernel to launch.
 * @param configure the launch configuration and arguments for a value.
 * @returns an operator that re-emits each {@link Work} after enqueuing the launch.
 * @throws PipelineError (to the subscriber) with the kernel's name and the value's index when
 * the arguments are refused or the launch fails; nothing is enqueued for that value.
 * @see Stream.launch
 */
export function launch<T, S extends Signature>(
  kernel: Kernel<S>,
  configure: (work: Work<T>) => { readonly config: LaunchConfig | LaunchOptions; readonly args: KernelArgs<S> },
): OperatorFunction<Work<T>, Work<T>> {
  return (source) =>
    new Observable((subscriber) =>
      operate(`launch(${kernel.name})`, source, subscriber, (work) => {
        const { config, args } = configure(work);
        work.stage(kernel.name, () => work.stream.launch(kernel, config, args));
        subscriber.next(work);
      }),
    );
}
