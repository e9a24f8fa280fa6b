import { Observable, type OperatorFunction } from 'rxjs';
import { Device } from '../core/api/device.js';
import { elementsOf, isArray, isInstance, typeError } from '../core/base/errors.js';
import { checkOptions } from '../core/base/options.js';
import type { Stream } from '../core/api/stream.js';
import { attached, operate } from './pipeline/operate.js';
import { checkBounded } from './pipeline/pool-options.js';
import { MAX_BRANCHES } from './pipeline/side-streams.js';
import type { Work } from './pipeline/work.js';
import type { NamedIn, With } from './pipeline/slots.js';

/** Options for {@link fanOut}. */
export interface FanOutOptions {
  /**
   * The device each branch runs on, one per branch: branch `i` gets a side stream of
   * `devices[i]`, joined back through events as on the value's own device. A branch's memory
   * on another device comes from `work.deviceOn(stream, dtype, length)`; its data moves with
   * `stream.copy` between the two devices' arrays (a peer copy).
   * @default every branch on the value's device
   */
  readonly devices?: readonly Device[];
}

/**
 * Forks each value's work onto `count` side streams and joins it back: every branch starts after
 * the device work enqueued for the value so far (an event on the value's stream), and work
 * enqueued after this operator waits for every branch (an event on each). Re-emits at once.
 *
 * Use it to run independent kernels of one value concurrently, on its device or on others.
 *
 * @example
 * fanOut(2, (w, stream, i) => stream.launch(i === 0 ? blurX : blurY, config, [w.buffers.input, n]))
 * @example
 * // branch 1 on another device: its input copied there, its result copied back
 * fanOut(2, (w, stream, i) => {
 *   if (i === 0) return stream.launch(blur, config, [w.buffers.input, w.buffers.left, n]);
 *   const input = w.deviceOn(stream, 'f32', n), out = w.deviceOn(stream, 'f32', n);
 *   stream.copy(input, w.buffers.input);
 *   stream.launch(blur, config, [input, out, n]);
 *   stream.copy(w.buffers.right, out);
 * }, { devices: [a, b] })
 *
 * @param count how many branches, at most {@link MAX_BRANCHES} (each is a side stream of every
 * lane that runs it, kept for the pool's life).
 * @param branch enqueues branch `i`'s work on `stream`. The arrays it makes with
 * `work.device(dtype, length, name)` and returns (one, or an array of them) are typed as
 * `work.buffers[name]` after this operator: every name it can return, as every branch runs.
 * @param options `devices`: the device of each branch.
 * @returns an operator that re-emits each {@link Work} with its branches joined.
 * @throws TypeError or RangeError for a `count` that is not an integer in 1..MAX_BRANCHES,
 * TypeError for a `branch` that is not a function or bad `options.devices` (at once);
 * PipelineError (to the subscriber) when a branch throws, the branches already enqueued
 * joined all the same, or when the device refuses a side stream (those made for the value are
 * closed again).
 */
export function fanOut<T, B, R, X = void>(
  count: number,
  branch: (work: Work<T, B, R>, stream: Stream, index: number) => X,
  options: FanOutOptions = {},
): OperatorFunction<Work<T, B, R>, Work<T, With<B, NamedIn<X>>, R>> {
  checkBounded('count', count, MAX_BRANCHES);
  if (typeof branch !== 'function') typeError('branch', 'a function that enqueues a branch', branch);
  checkOptions('options', options, ['devices']);
  const { devices } = options;
  // Each element read once (a getter may answer differently each time), a hole as undefined
  // (every() skips holes): what is checked is what the branches use.
  const read = devices !== undefined && isArray(devices) ? elementsOf(devices) : undefined;
  if (devices !== undefined && (read === undefined || read.length !== count || !read.every((d) => isInstance(d, Device))))
    typeError('options.devices', `${count} Devices, one per branch`, read ?? devices);
  const on = read && Object.freeze(read as Device[]);
  return (source) =>
    new Observable((subscriber) =>
      operate(`fanOut(${count})`, source, subscriber, (work) => {
        const { fork, streams } = work.lane.engine.sideStreams(count, on);
        work.stream.record(fork);
        try {
          streams.forEach((sideStream, i) => {
            sideStream.stream.wait(fork);
            branch(work, sideStream.stream, i);
          });
        } finally {
          for (const sideStream of streams) work.stream.wait(sideStream.stream.record(sideStream.joined));
        }
        subscriber.next(attached(work));
      }),
    );
}
