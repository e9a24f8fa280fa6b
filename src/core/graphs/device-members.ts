// What graphs add to the device layer's classes: Device's createGraph and Stream's capture, and
// the recording a replayed value's work goes into. Added here, where graphs are known.
import { GraphError, typeError } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import type { GraphCondition } from '../device/condition.js';
import type { Memory } from '../memory/memory.js';
import { checkCases, type ConditionTest, type ConditionalType } from './conditions.js';
import type { ConditionOptions, LoopOptions } from './graph.js';
import { refusal } from '../base/thenable.js';
import { Device } from '../device/device.js';
import { Stream } from '../device/stream.js';
import { Capture, checkNotNested, runCapture, type GraphRecorder } from './capture.js';
import { Graph, makeGraph } from './graph.js';

declare module '../device/device.js' {
  interface Device {
    /**
     * An empty graph, to build node by node (see {@link Graph}); {@link Stream.capture} records one
     * from a stream's work instead.
     * @example
     * using graph = device.createGraph();
     * const zeroed = graph.addFill(x, 0);
     * graph.addKernel(scale, { grid: 4, block: 256 }, [n, 2, x], { after: [zeroed] });
     * using exec = graph.instantiate();
     * exec.launch(stream);
     */
    createGraph(): Graph;
  }
}

declare module '../device/stream.js' {
  interface Stream {
    /**
     * Records the work given to this stream while `fn` runs (until its Promise settles, for an
     * async `fn`) into a {@link Graph}, instead of enqueuing it: kernel launches, copies, fills,
     * event records and waits, native host functions, and host steps. A host step (`hostLaunch`)
     * becomes a JavaScript step of the graph: the device never waits for JavaScript, so each launch
     * of the graph runs the step between the two parts of the graph it splits.
     *
     * Work that a graph cannot hold ends the capture: `synchronized`, `onDone`, `query`, `alloc`,
     * `close`, or launching an executable on the stream. The call throws a GraphError
     * (`forbidden`) that says what it was, every later call of the capture throws it too, and the
     * returned Promise rejects with it. The stream stays usable once `fn` has settled.
     *
     * Only what is given to this Stream object is captured: other CUDA code enqueuing on
     * {@link Stream.handle} meanwhile goes to the device as usual, as does rxcuda's own bookkeeping.
     * @param fn called with this stream; may be async.
     * @returns the captured graph, which the caller closes.
     * @throws TypeError for a non-function; GraphError (`capturing`) when the stream is already
     * capturing, (`nested`) when called inside another capture's function. The Promise rejects
     * with a TypeError for a closed stream, or the CudaError that broke the device.
     * @example
     * ```ts
     * using graph = await stream.capture((s) => {
     *   s.launch(scale, config, [n, 2, x]);
     *   s.hostLaunch(() => console.log('between the kernels'));
     *   s.launch(scale, config, [n, 3, x]);
     * });
     * using exec = graph.instantiate();
     * for (let i = 0; i < 1000; i++) exec.launch(stream);
     * ```
     */
    capture(fn: (stream: this) => unknown): Promise<Graph>;

    /**
     * While capturing: a new condition of the graph (or of the body being recorded), for one
     * conditional node recorded there to read, and for kernels there or in the bodies below to
     * set: a kernel whose signature declares a `'condition'` parameter takes it (see
     * {@link GraphCondition}).
     * @throws GraphError (`condition`) when the stream is not capturing; RangeError for an
     * `initial` that is not an unsigned 32-bit integer.
     * @example
     * const graph = await stream.capture((s) => {
     *   const more = s.condition({ initial: 1 });
     *   s.whileLoop(more, () => s.launch(relax, config, [grid, more]), { maxIterations: 10_000 });
     * });
     */
    condition(options?: ConditionOptions): GraphCondition;

    /**
     * While capturing: records a node that sets `condition` from the first element of `memory`
     * when it runs: to the element itself (`'value'`, the default: a switch's case), or to 1 or 0
     * by a comparison (`'!= 0'`, `'> 0.5'`). Integer elements and f32/f64 ones are read.
     * @throws GraphError (`condition`) when the stream is not capturing, or for a condition of
     * another graph or part of it; TypeError for other memory; as {@link Stream.launch} otherwise.
     * @example
     * s.setCondition(more, residualAbove, '!= 0'); // at the end of a while loop's body
     */
    setCondition(condition: GraphCondition, memory: Memory, test?: ConditionTest): void;

    /**
     * While capturing: a new condition, set from the first element of `memory` here (see
     * {@link Stream.setCondition}).
     * @example
     * const ok = s.conditionFrom(converged, '!= 0');
     * s.ifElse(ok, () => s.launch(finish, config, [grid]), () => s.launch(warn, config, [grid]));
     */
    conditionFrom(memory: Memory, test?: ConditionTest, options?: ConditionOptions): GraphCondition;

    /**
     * While capturing: records a conditional node that runs what `then` gives the stream when
     * `condition` is not zero. `then` runs at once, synchronously, with this stream, and what it gives the stream is
     * recorded into the node's body: kernels, copies, fills, library calls and further conditional
     * nodes. A host step, an event record or wait or a native host function there ends the capture
     * with a GraphError (`body`) that names it.
     * @throws GraphError (`condition`) when the stream is not capturing, or for a condition of
     * another graph or part of it, or one another node reads.
     * @example
     * s.ifThen(s.conditionFrom(count, '> 1000'), () => s.launch(compact, config, [x]));
     */
    ifThen(condition: GraphCondition, then: (stream: this) => unknown): void;

    /**
     * While capturing: a conditional node that runs what `then` records when `condition` is not
     * zero, else what `otherwise` records (see {@link Stream.ifThen}).
     * @example
     * s.ifElse(ok, () => s.launch(finish, config, [x]), () => s.fill(x, 0));
     */
    ifElse(condition: GraphCondition, then: (stream: this) => unknown, otherwise: (stream: this) => unknown): void;

    /**
     * While capturing: a conditional node that runs what `body` records again and again while
     * `condition` is not zero (checked before each iteration, the first included): a kernel in the
     * body sets it, or {@link Stream.setCondition} does. With `maxIterations`, a loop that would
     * run more is stopped on the device, the graph goes on, and a {@link LoopLimitError} is
     * reported after the launch, through the stream's `error` event (or a pipeline's error).
     * @throws RangeError for a `maxIterations` that is not a whole number from 1 to 2^31 - 1; as
     * {@link Stream.ifThen} otherwise.
     * @example
     * const more = s.condition({ initial: 1 });
     * s.whileLoop(more, () => s.launch(relax, config, [grid, next, more]), { maxIterations: 10_000 });
     */
    whileLoop(condition: GraphCondition, body: (stream: this) => unknown, options?: LoopOptions): void;

    /**
     * While capturing: a conditional node that runs what `cases[n]` records when `condition` is
     * `n`, and nothing when it is `cases.length` or more (see {@link Stream.ifThen}).
     * @throws RangeError for no cases; as {@link Stream.ifThen} otherwise.
     * @example
     * const which = s.conditionFrom(classOf);
     * s.switchOn(which, [() => s.launch(a, config, [x]), () => s.launch(b, config, [x])]);
     */
    switchOn(condition: GraphCondition, cases: readonly ((stream: this) => unknown)[]): void;
  }
}

Device.prototype.createGraph = function createGraph(this: Device): Graph {
  this.engine.checkUsable();
  return makeGraph(this);
};

function alreadyCapturing(): never {
  throw new GraphError('capturing', 'The stream is already capturing: end that capture first');
}

Stream.prototype.capture = function capture(this: Stream, fn: (stream: Stream) => unknown): Promise<Graph> {
  if (typeof fn !== 'function') typeError('fn', 'a function', fn);
  const lane = this.engine;
  const refused = refusal(() => lane.checkOpen());
  if (refused) return refused;
  if (lane.recorder) alreadyCapturing();
  checkNotNested();
  const capture = (lane.recorder = new Capture(this.device));
  return runCapture(capture, () => fn(this), () => (lane.recorder = undefined));
};

/**
 * Records the work given to `stream` into `recorder` (a GraphRecorder: it takes what kernels/ and
 * libraries/ hand over too, see device/recorder.ts) until {@link endRecording} (the `replay`
 * operator's recording of one value).
 * @throws GraphError (`capturing`) while the stream captures.
 */
export function recordInto(stream: Stream, recorder: GraphRecorder): void {
  const lane = stream.engine;
  if (lane.recorder) alreadyCapturing();
  lane.recorder = recorder;
}

/** Ends {@link recordInto}'s recording into `recorder` (nothing, when another took its place). */
export function endRecording(stream: Stream, recorder: GraphRecorder): void {
  if (stream.engine.recorder === recorder) stream.engine.recorder = undefined;
}

/** The capture a conditional method of `stream` records into. */
function captureOf(stream: Stream, method: string): Capture {
  const lane = stream.engine;
  lane.checkOpen();
  if (!(lane.recorder instanceof Capture))
    throw new GraphError('condition', `stream.${method}() records into the graph being captured: call it inside stream.capture()`);
  return lane.recorder;
}

/** A body function, checked, to call with `stream`. */
function checkBody(stream: Stream, name: string, fn: unknown): () => unknown {
  if (typeof fn !== 'function') typeError(name, 'a function', fn);
  return () => (fn as (stream: Stream) => unknown)(stream);
}

function conditional(stream: Stream, method: string, type: ConditionalType, condition: GraphCondition, fns: readonly (() => unknown)[], loop?: LoopOptions): void {
  captureOf(stream, method).conditional(type, condition, fns, loop);
}

Stream.prototype.condition = function condition(this: Stream, options: ConditionOptions = {}): GraphCondition {
  const capture = captureOf(this, 'condition');
  checkOptions('options', options, ['initial']);
  return capture.condition(options.initial);
};

Stream.prototype.setCondition = function setCondition(this: Stream, condition: GraphCondition, memory: Memory, test: ConditionTest = 'value'): void {
  captureOf(this, 'setCondition').setCondition(condition, memory, test);
};

Stream.prototype.conditionFrom = function conditionFrom(this: Stream, memory: Memory, test: ConditionTest = 'value', options: ConditionOptions = {}): GraphCondition {
  const capture = captureOf(this, 'conditionFrom');
  checkOptions('options', options, ['initial']);
  const condition = capture.condition(options.initial);
  capture.setCondition(condition, memory, test);
  return condition;
};

Stream.prototype.ifThen = function ifThen(this: Stream, condition: GraphCondition, then: (stream: Stream) => unknown): void {
  conditional(this, 'ifThen', 'if', condition, [checkBody(this, 'then', then)]);
};

Stream.prototype.ifElse = function ifElse(this: Stream, condition: GraphCondition, then: (stream: Stream) => unknown, otherwise: (stream: Stream) => unknown): void {
  conditional(this, 'ifElse', 'if', condition, [checkBody(this, 'then', then), checkBody(this, 'otherwise', otherwise)]);
};

Stream.prototype.whileLoop = function whileLoop(this: Stream, condition: GraphCondition, body: (stream: Stream) => unknown, options: LoopOptions = {}): void {
  checkOptions('options', options, ['maxIterations', 'name']);
  conditional(this, 'whileLoop', 'while', condition, [checkBody(this, 'body', body)], options);
};

Stream.prototype.switchOn = function switchOn(this: Stream, condition: GraphCondition, cases: readonly ((stream: Stream) => unknown)[]): void {
  conditional(this, 'switchOn', 'switch', condition, checkCases(cases).map((fn, i) => checkBody(this, `cases[${i}]`, fn)));
};
