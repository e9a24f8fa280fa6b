import { Observable, type OperatorFunction, type Subscription } from 'rxjs';
import { elementsOf, isArray, rangeError, received, typeError } from '../core/base/errors.js';
import { LoopLimitError } from '../core/base/loop-limit-error.js';
import { checkOptions } from '../core/base/options.js';
import type { HostArray, Memory } from '../core/api/memory.js';
import type { MemoryView } from '../core/memory/memory-view.js';
import { checkConditionMemory, checkMaxIterations, conditionValue, parseTest, type ConditionTest, type ConditionalType, type ParsedTest } from '../core/graphs/conditions.js';
import { loadConditionKernelsOn } from '../core/api/graph.js';
import { BodyRecording, ValueScope } from '../core/graphs/body-recording.js';
import type { GraphRecorder } from '../core/graphs/capture.js';
import { conditionalWork, setConditionWork } from '../core/graphs/node-work.js';
import { ValueRecording } from './pipeline/replay-match.js';
import { Feed } from './pipeline/feed.js';
import { operate } from './pipeline/operate.js';
import { PipelineError, type Work, holdValue, releaseValueWhenDone, releaseValue } from './pipeline/work.js';

/** The warning code of a pipeline whose on-device loop or branch runs as host steps (outside `replay`). */
export const DEVICE_CONTROL_EAGER_WARNING = 'RXCUDA_DEVICE_CONTROL_EAGER';

/** A body of steps: operators that enqueue a value's device work and re-emit the value at once. */
export type DeviceBody<T, B, R> = OperatorFunction<Work<T, B, R>, Work<T, B, R>>;

/** Options for {@link loopOnDevice}. */
export interface LoopOnDeviceOptions<T, B, R> {
  /** The memory whose first element decides, before each iteration, whether the body runs again. */
  readonly while: (work: Work<T, B, R>) => Memory;
  /**
   * How the element decides: `'!= 0'` (the default) runs the body while it is not zero; any
   * comparison (`'> 1e-6'`) runs it while the comparison holds (see {@link ConditionTest}).
   */
  readonly test?: ConditionTest;
  /**
   * The most iterations a value's loop runs: one that would run more stops there, and the value
   * fails with a PipelineError whose `cause` is a {@link LoopLimitError}.
   * @default no bound
   */
  readonly maxIterations?: number;
  /** What errors call the loop. @default 'loopOnDevice' */
  readonly name?: string;
}

/** Options for {@link branchOnDevice}. */
export interface BranchOnDeviceOptions {
  /**
   * `'value'` (the default): the element is the number of the branch to run (none when it is
   * `branches.length` or more, or negative). A comparison (`'> 0.5'`): `branches[0]` runs when
   * it holds, `branches[1]` (if given) when it does not.
   */
  readonly test?: ConditionTest;
}

/**
 * Runs `body` for each value again and again while the first element of `options.while(value)`
 * says so (checked before each iteration, the first included): an iterative solver until its
 * residual is small, a refinement until nothing changed. `body` is made of steps (`launch`,
 * `enqueue`, `gemm`, `fft`) that enqueue the value's device work and re-emit it at once.
 *
 * Under {@link replay}, the loop is one conditional node (a while) of the value's executable: the
 * device decides, and the loop never wakes JavaScript. (The first values, while the device's
 * built-in condition kernels compile, go as given: their conditional node runs as a host step, with
 * the same results.) Outside `replay` each iteration reads the element back and decides on the
 * host, with the same results; the pipeline says so once, in a process warning with code
 * `RXCUDA_DEVICE_CONTROL_EAGER`, and takes its values one at a time then.
 *
 * @example
 * replay(pipe(
 *   upload((f) => f.grid, 'grid'),
 *   loopOnDevice(launch(relax, config, [(w) => w.buffers.grid, (w) => w.buffers.changed]), {
 *     while: (w) => w.buffers.changed,
 *     maxIterations: 10_000,
 *   }),
 *   download((w) => w.buffers.grid, 'grid'),
 * ))
 * @param body the steps of one iteration, composed with RxJS's `pipe`.
 * @param options `while` (the memory that decides), `test`, `maxIterations`, `name`.
 * @throws TypeError/RangeError (at once) for a non-function `body` or bad options; PipelineError
 * (to the subscriber) when the body fails, the memory is refused, the loop runs past
 * `maxIterations` (a LoopLimitError as its cause), or a body step is work a graph's body cannot
 * hold (a GraphError, reason `body`, under `replay`).
 */
export function loopOnDevice<T, B, R>(body: DeviceBody<T, B, R>, options: LoopOnDeviceOptions<T, B, R>): OperatorFunction<Work<T, B, R>, Work<T, B, R>> {
  if (typeof body !== 'function') typeError('body', 'an operator function of steps, e.g. pipe(launch(…), launch(…))', body);
  if (typeof options !== 'object' || options === null) typeError('options', 'an object with `while`, the function that gives the memory deciding the loop', options);
  checkOptions('options', options, ['while', 'test', 'maxIterations', 'name']);
  const { while: flag, name = 'loopOnDevice' } = options;
  if (typeof flag !== 'function') typeError('options.while', 'a function that gives the memory deciding the loop', flag);
  if (typeof name !== 'string') typeError('options.name', 'a string', name);
  const test = parseTest(options.test ?? '!= 0');
  const maxIterations = checkMaxIterations(options.maxIterations);
  return control(name, 'while', [body], flag, test, maxIterations);
}

/**
 * Runs one of `branches` for each value, chosen on the device by the first element of `on(value)`:
 * by its value (branch n when it is n), or by a comparison (`test`: the first branch when it
 * holds, the second when it does not). Each branch is made of steps, as {@link loopOnDevice}'s
 * body is; under {@link replay} the choice is one conditional node (a switch, or an if/else) of
 * the value's executable, and elsewhere it is made in JavaScript, said once as a process warning.
 *
 * @example
 * branchOnDevice((w) => w.buffers.kind, [
 *   launch(smooth, config, [(w) => w.buffers.image]),
 *   launch(sharpen, config, [(w) => w.buffers.image]),
 * ])
 * @param on gives the memory whose first element chooses.
 * @param branches one operator function of steps per branch.
 * @param options `test`.
 * @throws TypeError/RangeError (at once) for no branches, a non-function, more than two branches
 * with a comparison, or bad options; PipelineError (to the subscriber) as {@link loopOnDevice}.
 */
export function branchOnDevice<T, B, R>(on: (work: Work<T, B, R>) => Memory, branches: readonly DeviceBody<T, B, R>[], options: BranchOnDeviceOptions = {}): OperatorFunction<Work<T, B, R>, Work<T, B, R>> {
  if (typeof on !== 'function') typeError('on', 'a function that gives the memory choosing the branch', on);
  if (!isArray(branches)) typeError('branches', 'an array of operator functions', branches);
  const list = elementsOf(branches) as DeviceBody<T, B, R>[];
  if (list.length === 0) rangeError('branches', 'one branch at least', received('none'));
  list.forEach((branch, i) => {
    if (typeof branch !== 'function') typeError(`branches[${i}]`, 'an operator function of steps', branch);
  });
  checkOptions('options', options, ['test']);
  const test = parseTest(options.test ?? 'value');
  if (test.op !== 0 && list.length > 2) rangeError('branches', 'one or two branches with a comparison (then and otherwise)', received(`${list.length}`));
  return control('branchOnDevice', test.op === 0 ? 'switch' : 'if', list, on, test, undefined);
}

let warned = false;

function control<T, B, R>(
  name: string,
  type: ConditionalType,
  bodies: readonly DeviceBody<T, B, R>[],
  memoryOf: (work: Work<T, B, R>) => Memory,
  test: ParsedTest,
  maxIterations: number | undefined,
): OperatorFunction<Work<T, B, R>, Work<T, B, R>> {
  return (source) =>
    new Observable<Work<T, B, R>>((subscriber) => {
      const feeds = bodies.map(() => new Feed<Work<T, B, R>>());
      /** The value a body is running for now, and what its emission resolves (or the end rejects). */
      let running: Work<T, B, R> | undefined;
      let ran: (() => void) | undefined;
      let stop: ((error: unknown) => void) | undefined;
      let emitted = false;
      let ended = false;
      const inner: Subscription[] = bodies.map((body, b) =>
        body(feeds[b]!.values).subscribe({
          next: (work) => {
            if (work !== running) return;
            emitted = true;
            ran?.();
          },
          error: (error) => subscriber.error(error),
        }),
      );
      /** Runs body `b` for `work`; resolves once it has re-emitted the value. */
      const runBody = (b: number, work: Work<T, B, R>): Promise<void> =>
        new Promise((resolve, reject) => {
          if (ended) return reject(new Error(`${name} was unsubscribed`));
          running = work;
          emitted = false;
          ran = resolve;
          stop = reject;
          feeds[b]!.next(work);
          if (emitted) resolve();
        });
      let queue: Promise<unknown> = Promise.resolve();
      const outer = operate(name, source, subscriber, (work, expectEmission) => {
        const memory = checkConditionMemory(memoryOf(work), work.stream.device.engine);
        const recorder = work.stream.engine.recorder;
        const device = work.stream.device;
        // A replayed value's recording, or (nested) the body another operator records for it.
        const recording = recorder instanceof ValueRecording || recorder instanceof BodyRecording ? recorder : undefined;
        if (recording) {
          // Under replay: a value that needs the built-in kernels before they are loaded goes
          // as given (replayer.ts), its conditional node run as a host step, with the same results.
          void loadConditionKernelsOn(device).catch(() => {});
          recordOnDevice(name, type, bodies.length, work, memory, test, maxIterations, recording, (b) => {
            running = work;
            emitted = false;
            feeds[b]!.next(work);
            return emitted;
          });
          subscriber.next(work);
          return;
        }
        warnEager(name);
        const settle = expectEmission();
        holdValue(work); // the value and its buffers stay until its loop has run and it has gone on
        queue = queue.then(async () => {
          try {
            await runOnHost(name, type, bodies.length, work, memory, test, maxIterations, runBody);
            if (!subscriber.closed) subscriber.next(work);
          } catch (error) {
            if (!subscriber.closed) subscriber.error(new PipelineError(name, work.index, error));
          } finally {
            settle();
            try {
              releaseValueWhenDone(work);
            } catch {
              releaseValue(work); // the device broke: nothing more of it runs
            }
          }
        });
      });
      return () => {
        ended = true;
        outer.unsubscribe();
        for (const subscription of inner) subscription.unsubscribe();
        stop?.(new Error(`${name} was unsubscribed`)); // a value mid-loop releases what it holds
      };
    });
}

function warnEager(name: string): void {
  if (warned) return;
  warned = true;
  process.emitWarning(`${name} decides on the host, one value at a time, outside replay: each iteration reads its condition back`, {
    type: 'RxcudaWarning',
    code: DEVICE_CONTROL_EAGER_WARNING,
  });
}

/**
 * Records the value's conditional node into its replay recording: the condition set from
 * `memory` before it (and, for a loop, at the end of its body), the bodies recorded as the
 * value's body steps give them.
 */
function recordOnDevice(
  name: string,
  type: ConditionalType,
  count: number,
  work: Work<unknown, unknown, unknown>,
  memory: MemoryView,
  test: ParsedTest,
  maxIterations: number | undefined,
  recorder: GraphRecorder,
  run: (b: number) => boolean,
): void {
  const lane = work.stream.engine;
  const condition = ValueScope.of(work).condition();
  recorder.node(setConditionWork(condition, memory, test));
  const bodies = Array.from({ length: count }, (_, b) => {
    const body = new BodyRecording(`${name}'s ${count === 1 ? 'body' : `branch ${b}`}`);
    lane.recorder = body;
    try {
      if (!run(b)) typeError('body', 'steps that enqueue the value\'s work and re-emit it at once (launch, enqueue, gemm, fft)', received('one that emitted later, or never'));
      if (type === 'while') body.node(setConditionWork(condition, memory, test));
    } finally {
      lane.recorder = recorder;
    }
    return body.seal();
  });
  const loop = maxIterations === undefined ? undefined : { name, maxIterations };
  recorder.node(conditionalWork(type, condition, bodies, loop));
}

/** Runs the loop or the branch deciding on the host: the element read back before each decision. */
async function runOnHost<T, B, R>(
  name: string,
  type: ConditionalType,
  count: number,
  work: Work<T, B, R>,
  memory: MemoryView,
  test: ParsedTest,
  maxIterations: number | undefined,
  runBody: (b: number, work: Work<T, B, R>) => Promise<void>,
): Promise<void> {
  const stream = work.stream;
  const word: HostArray = stream.device.allocHost(memory.dtype, 1);
  try {
    const read = async () => {
      stream.copy(word, (memory as Memory & { subarray(begin: number, end: number): Memory }).subarray(0, 1));
      await stream.synchronized();
      return conditionValue((word.data as ArrayLike<number | bigint>)[0]!, test);
    };
    if (type !== 'while') {
      const value = await read();
      const b = type === 'switch' ? value : value !== 0 ? 0 : 1;
      if (b < count) await runBody(b, work);
      return;
    }
    for (let iterations = 0; (await read()) !== 0; iterations++) {
      if (maxIterations !== undefined && iterations === maxIterations) throw new LoopLimitError(name, iterations);
      await runBody(0, work);
    }
  } finally {
    word.close();
  }
}
