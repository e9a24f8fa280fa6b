// Over 400 lines: Graph is one public class, and its builder methods (nodes, conditional nodes and
// their bodies, steps) with their doc comments are its whole surface, best read in one place.
// Graphs: device work recorded once and launched many times. A graph is built node by node (the
// add… methods) or captured from a stream (Stream.capture); instantiate() makes the executable
// that launches it. JavaScript steps split a graph into segments: the device never waits for
// JavaScript, so a step runs between two native graph launches, as a host step of the scheduler.
// Its engine is its builder (graphs/graph-builder.ts), which it hands how to make its nodes and
// bodies when it makes it.
import type { DType } from '../base/dtype.js';
import { brand, elementsOf, isArray, isInstance, nameOf, rangeError, received, typeError } from '../base/errors.js';
import { checkOptions } from '../base/options.js';
import { checkScalar } from '../base/scalar.js';
import { checkCopy, checkMemoryOf } from '../memory/checks.js';
import { Memory } from './memory.js';
import { HOST_LAUNCH_OPTIONS, checkTimeout, copyUserData, type HostLaunchOptions, type UserData } from '../queue/user-data.js';
import type { Device } from './device.js';
import { Event } from './event.js';
import { Kernel, type KernelArgs, type Signature } from './kernel.js';
import { LaunchConfig, type LaunchOptions } from '../kernels/launch-config.js';
import { GraphNode, makeGraphNode } from './graph-node.js';
import { GraphExec, makeGraphExec } from './graph-exec.js';
import { copyWork, fillWork, hostFunctionWork, kernelWork } from '../graphs/node-work.js';
import { GraphBuilder, type BuilderFaces } from '../graphs/graph-builder.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';
import { GraphError } from '../base/errors.js';
import { isThenable } from '../base/thenable.js';
import { GraphCondition, checkConditionArgs, checkConditionOfNode, type ConditionScope } from '../device/condition.js';
import { bodyReturnedPromise, checkCases, type ConditionTest, type ConditionalType, type LoopBound } from '../graphs/conditions.js';
import { loadConditionKernels } from '../graphs/condition-kernels.js';
import { compileModule } from './module.js';
import type { ConditionOptions, LoopOptions } from '../graphs/conditions.js';

/** Options for a node added to a {@link Graph}. */
export interface NodeOptions {
  /**
   * Nodes of the same graph (and the same segment: after the last step) that complete before
   * this one starts.
   * @default [] (the node may start at once)
   */
  readonly after?: readonly GraphNode[];
}

export type { ConditionOptions, LoopOptions } from '../graphs/conditions.js';
export type { GraphStep, Segment } from '../graphs/graph-builder.js';

/**
 * Compiles and loads `device`'s built-in condition kernels, once per device (see
 * graphs/condition-kernels.ts): for a graph's `ready()`, a capture, and the operators that record
 * conditional work without a Graph.
 */
export function loadConditionKernelsOn(device: Device): Promise<unknown> {
  return loadConditionKernels(device.engine, (source, options) => compileModule(device, source, options));
}

/** An empty graph of `device`: what {@link Device.createGraph} and {@link Stream.capture} start from. */
export let makeGraph: (device: Device) => Graph;

/**
 * Device work recorded once, to be launched any number of times on any stream of its device
 * through an executable ({@link instantiate}). Build one node by node with the `add…` methods
 * ({@link Device.createGraph}), or record what a stream is given with {@link Stream.capture}.
 *
 * A graph keeps everything its nodes use alive until it and every executable made from it are
 * closed: memory (closing an array only frees it then), kernels' modules and events.
 *
 * @example
 * ```ts
 * const graph = device.createGraph();
 * const a = graph.addFill(x, 0);
 * const b = graph.addKernel(scale, { grid: 4, block: 256 }, [x.length, 2, x], { after: [a] });
 * using exec = graph.instantiate();
 * exec.launch(stream);
 * ```
 */
export class Graph implements ConditionScope {
  /** The device the graph's work runs on. */
  readonly device: Device;
  /** @internal The builder this graph delegates to: its nodes, segments, bodies and held resources. */
  readonly engine: GraphBuilder<GraphNode, Graph>;
  /** The graph this one is a body of (of a conditional node). */
  readonly #parent: Graph | undefined;
  readonly #root: Graph;
  static {
    brand(this, (value) => #root in value);
  }

  private constructor(token: ConstructorToken, device: Device, parent?: Graph) {
    checkConstructorToken(token, 'a Graph', 'device.createGraph() or stream.capture()');
    this.device = device;
    this.#parent = parent;
    this.#root = parent ? parent.#root : this;
    const faces: BuilderFaces<GraphNode, Graph> = {
      scope: this,
      makeNode: (index, work, after) => makeGraphNode(this, index, work, after),
      makeBody: () => new Graph(CONSTRUCTOR_TOKEN, device, this),
      builderOf: (graph) => graph.engine,
    };
    this.engine = new GraphBuilder(device.engine, faces, parent?.engine);
  }

  static #create(device: Device): Graph {
    return new Graph(CONSTRUCTOR_TOKEN, device);
  }

  /**
   * The graph this one is a body of (of a conditional node), or undefined for a graph itself. A
   * body's nodes are the graph's: it is instantiated, closed and updated with it.
   */
  get parent(): Graph | undefined {
    return this.#parent;
  }

  /** The top-level graph: this one, unless it is a body. */
  get root(): Graph {
    return this.#root;
  }

  /** The nodes, in the order they were added (or captured). */
  get nodes(): readonly GraphNode[] {
    return this.engine.nodes.slice();
  }

  /**
   * The kernel nodes that launch `kernel`, in order, typed by its signature: a captured graph's
   * nodes to give new arguments with {@link GraphExec.setArgs}.
   * @example
   * exec.setArgs(graph.nodesOf(add)[0]!, [x, -1000, 1024]);
   */
  nodesOf<S extends Signature>(kernel: Kernel<S>): readonly GraphNode<S>[] {
    const found: GraphNode[] = [];
    const visit = (nodes: readonly GraphNode[]) => {
      for (const node of nodes) {
        const work = node.work;
        if (work.kind === 'kernel' && work.kernel === kernel) found.push(node);
        else if (work.kind === 'conditional') for (const body of work.bodies) visit((body.graph as Graph).engine.nodes);
      }
    };
    visit(this.engine.nodes);
    return found as unknown as GraphNode<S>[];
  }

  /** The number of JavaScript steps (each splits the graph into one more segment). */
  get steps(): number {
    return this.engine.segments.length - 1;
  }

  /** True once `close()` was called (on the graph, for a body). */
  get closed(): boolean {
    return this.engine.closed;
  }

  /**
   * Adds a kernel launch; the arguments are checked and copied now (later changes by the caller
   * do not reach the graph).
   * @throws TypeError/RangeError naming the bad argument, as {@link Stream.launch} does.
   * @example
   * const first = graph.addKernel(scale, { grid: 4, block: 256 }, [n, 2, x]);
   * graph.addKernel(scale, { grid: 4, block: 256 }, [n, 3, x], { after: [first] });
   */
  addKernel<S extends Signature>(kernel: Kernel<S>, config: LaunchConfig | LaunchOptions, args: KernelArgs<S>, options: NodeOptions = {}): GraphNode<S> {
    const after = this.#checkAdd(options);
    if (!isInstance(kernel, Kernel)) typeError('kernel', 'a Kernel', kernel);
    if (kernel.device !== this.device) rangeError('kernel', `a kernel of ${this.device}`, received(`a kernel of ${kernel.device}`));
    if (kernel.module.closed) typeError('kernel', 'a kernel of a loaded module', received('a kernel of a closed Module'));
    if (kernel.engine.specialized)
      typeError('kernel', 'a kernel without a specializer (add the specialization it launches instead)', received(`template kernel ${kernel.name}`));
    const checked = LaunchConfig.from(config);
    kernel.engine.checkConfig(checked); // as a launch is: a node the driver would refuse is refused now
    if (!isArray(args)) typeError('args', 'an array of kernel arguments', args);
    const given = elementsOf(args); // a plain copy, read once: what is packed is what the graph holds
    const block = kernel.engine.packed(checked, given as KernelArgs<S>);
    checkConditionArgs(given, this);
    return this.engine.add(kernelWork(kernel, checked, given, block), after) as GraphNode<S>;
  }

  /**
   * Adds a copy of all of `src` into `dst` (same element type and length, as {@link Stream.copy}).
   * @throws TypeError/RangeError as {@link Stream.copy} does.
   * @example
   * const upload = graph.addCopy(x, input); // input: a HostArray of x's type and length
   * graph.addKernel(scale, config, [n, 2, x], { after: [upload] });
   */
  addCopy<D extends DType>(dst: Memory<D>, src: Memory<D>, options: NodeOptions = {}): GraphNode<undefined> {
    const after = this.#checkAdd(options);
    checkCopy(dst, src, this.device.engine);
    return this.engine.add(copyWork(dst, src), after) as GraphNode<undefined>;
  }

  /**
   * Adds a fill of every element of `dst` with `value`.
   * @throws TypeError/RangeError when `value` does not fit `dst.dtype`.
   * @example
   * const zeroed = graph.addFill(sums, 0);
   * graph.addKernel(accumulate, config, [n, x, sums], { after: [zeroed] });
   */
  addFill<D extends DType>(dst: Memory<D>, value: D extends 'i64' | 'u64' ? number | bigint : number, options: NodeOptions = {}): GraphNode<undefined> {
    const after = this.#checkAdd(options);
    checkMemoryOf('dst', dst, this.device.engine);
    checkScalar('value', dst.dtype, value);
    return this.engine.add(fillWork(dst, value), after) as GraphNode<undefined>;
  }

  /**
   * Adds a native host function (a `CUhostFn` from compiled code) with its user data, as
   * {@link Stream.launchHostFunction} enqueues one: a host node, run on a driver thread.
   * @throws TypeError for a null or non-bigint function pointer.
   * @example
   * // `callback` is a CUhostFn's address from compiled code
   * graph.addHostFunction(callback, userDataPointer, { after: [lastKernel] });
   */
  addHostFunction(fn: bigint, userData: bigint | Memory = 0n, options: NodeOptions = {}): GraphNode<undefined> {
    const after = this.#checkAdd(options);
    if (typeof fn !== 'bigint' || fn <= 0n || fn >= 2n ** 64n) typeError('fn', 'a CUhostFn pointer as a non-zero bigint', fn);
    if (isInstance<Memory>(userData, Memory)) checkMemoryOf('userData', userData, this.device.engine);
    else if (typeof userData !== 'bigint' || userData < 0n || userData >= 2n ** 64n)
      typeError('userData', 'a pointer as a bigint, or memory', userData);
    return this.engine.add(hostFunctionWork(fn, userData), after) as GraphNode<undefined>;
  }

  /**
   * Adds a record of `event` (the native event it has now; see {@link Event}), which streams can
   * wait for after the graph's launches.
   * @throws TypeError for a closed event; RangeError for an event of another device.
   * @example
   * const done = device.createEvent();
   * graph.addRecord(done, { after: [lastKernel] });
   * graph.instantiate().launch(stream);
   * other.wait(done); // other's later work follows the graph's kernels
   */
  addRecord(event: Event, options: NodeOptions = {}): GraphNode<undefined> {
    const after = this.#checkAdd(options);
    this.#checkEvent(event);
    return this.engine.add(this.engine.eventWork('record', event.engine), after) as GraphNode<undefined>;
  }

  /**
   * Adds a wait for `event`: the nodes after it start once the work before its latest record
   * (when the node runs) has completed.
   * @throws TypeError for a closed event; RangeError for an event of another device.
   * @example
   * const ready = producer.record();
   * const waited = graph.addWait(ready);
   * graph.addKernel(consume, config, [x], { after: [waited] });
   */
  addWait(event: Event, options: NodeOptions = {}): GraphNode<undefined> {
    const after = this.#checkAdd(options);
    this.#checkEvent(event);
    return this.engine.add(this.engine.eventWork('wait', event.engine), after) as GraphNode<undefined>;
  }

  /**
   * Adds a node that does nothing, to join dependencies.
   * @example
   * const both = graph.addEmpty({ after: [left, right] });
   * graph.addKernel(merge, config, [x, y], { after: [both] });
   */
  addEmpty(options: NodeOptions = {}): GraphNode<undefined> {
    return this.engine.add({ kind: 'empty', memory: [] }, this.#checkAdd(options)) as GraphNode<undefined>;
  }

  /**
   * A new condition of this graph (or body), for one conditional node added here to read, and for
   * kernels here or in the bodies below to set (see {@link GraphCondition}).
   * @throws TypeError for a closed graph; RangeError for an `initial` that is not an unsigned 32-bit integer.
   * @example
   * const more = graph.condition({ initial: 1 });
   * graph.addWhile(more, (body) => body.addKernel(relax, config, [grid, more]), { maxIterations: 10_000 });
   */
  condition(options: ConditionOptions = {}): GraphCondition {
    this.#checkOpen();
    checkOptions('options', options, ['initial']);
    return this.engine.newCondition(options.initial);
  }

  /**
   * Adds a node that sets `condition` from the first element of `memory` when it runs: to the
   * element itself (`'value'`, the default), or to 1 or 0 by a comparison (`'!= 0'`, `'> 0.5'`).
   * @throws TypeError for memory of another element type than an integer or f32/f64 one; GraphError
   * (`condition`) for a condition of another graph, or made in a body below this one.
   * @example
   * const ok = graph.condition();
   * const set = graph.addSetCondition(ok, converged, '!= 0');
   * graph.addIf(ok, (then) => then.addKernel(finish, config, [grid]), { after: [set] });
   */
  addSetCondition(condition: GraphCondition, memory: Memory, test: ConditionTest = 'value', options: NodeOptions = {}): GraphNode<undefined> {
    const after = this.#checkAdd(options);
    return this.engine.add(this.engine.setConditionWork(condition, memory, test), after) as GraphNode<undefined>;
  }

  /**
   * Adds a conditional node that runs the nodes `then` adds to its body when `condition` is not
   * zero. The body holds kernels, copies, fills, empty nodes, library calls and nested conditional
   * nodes; a step, an event record or wait or a native host function there is refused.
   * @throws GraphError (`condition`) for a condition of another graph or part of it, or one used
   * already; (`body`) for what a body cannot hold, or a body function that returned a Promise.
   * @example
   * const big = graph.condition();
   * graph.addSetCondition(big, count, '> 1000');
   * graph.addIf(big, (then) => then.addKernel(compact, config, [x]));
   */
  addIf(condition: GraphCondition, then: (body: Graph) => void, options: NodeOptions = {}): GraphNode<undefined> {
    const after = this.#checkAdd(options);
    return this.#addConditional('if', condition, [then], undefined, after);
  }

  /**
   * Adds a conditional node that runs the body `then` adds when `condition` is not zero, and the
   * body `otherwise` adds when it is zero (see {@link addIf}).
   * @example
   * graph.addIfElse(ok, (then) => then.addKernel(finish, config, [x]), (otherwise) => otherwise.addFill(x, 0));
   */
  addIfElse(condition: GraphCondition, then: (body: Graph) => void, otherwise: (body: Graph) => void, options: NodeOptions = {}): GraphNode<undefined> {
    const after = this.#checkAdd(options);
    return this.#addConditional('if', condition, [then, otherwise], undefined, after);
  }

  /**
   * Adds a conditional node that runs its body (what `body` adds) again and again while
   * `condition` is not zero: a kernel in the body sets it (it is checked before each iteration,
   * the first included). With `maxIterations`, a loop that would run more is stopped on the
   * device, the graph goes on, and a {@link LoopLimitError} is reported after the launch.
   * @throws RangeError for a `maxIterations` that is not a whole number from 1 to 2^31 - 1; as
   * {@link addIf} otherwise.
   * @example
   * const more = graph.condition({ initial: 1 });
   * graph.addWhile(more, (body) => body.addKernel(relax, config, [grid, more]), { maxIterations: 10_000 });
   */
  addWhile(condition: GraphCondition, body: (body: Graph) => void, options: NodeOptions & LoopOptions = {}): GraphNode<undefined> {
    checkOptions('options', options, ['after', 'maxIterations', 'name']);
    const given = options.after; // each option read once
    const after = this.#checkAdd(given === undefined ? {} : { after: given });
    // Checked before the loop is counted among the graph's.
    checkConditionOfNode(condition, this);
    if (typeof body !== 'function') typeError('body', 'a function', body);
    return this.#addConditional('while', condition, [body], this.engine.loopBound(options), after);
  }

  /**
   * Adds a conditional node that runs the body of case `n` (what `cases[n]` adds) when `condition`
   * is `n`, and none when it is `cases.length` or more.
   * @throws RangeError for no cases; as {@link addIf} otherwise.
   * @example
   * const which = graph.condition();
   * graph.addSetCondition(which, classOf);
   * graph.addSwitch(which, [(c) => c.addKernel(a, config, [x]), (c) => c.addKernel(b, config, [x])]);
   */
  addSwitch(condition: GraphCondition, cases: readonly ((body: Graph) => void)[], options: NodeOptions = {}): GraphNode<undefined> {
    const after = this.#checkAdd(options);
    return this.#addConditional('switch', condition, checkCases(cases), undefined, after);
  }

  /**
   * Resolves once what instantiating the graph needs is ready: on CUDA, the built-in kernels that
   * set conditions from memory and bound loops, compiled once per device (a capture waits for them
   * itself). {@link instantiate} throws until then.
   * @example
   * await graph.ready();
   * using exec = graph.instantiate();
   */
  async ready(): Promise<void> {
    if (this.engine.usesBuiltins) await loadConditionKernelsOn(this.device);
  }

  #addConditional(type: ConditionalType, condition: GraphCondition, fns: readonly ((body: Graph) => void)[], loop: LoopBound | undefined, after: readonly GraphNode[]): GraphNode<undefined> {
    checkConditionOfNode(condition, this); // before any body is recorded
    fns.forEach((fn, i) => {
      if (typeof fn !== 'function') typeError(fns.length === 1 ? 'body' : `bodies[${i}]`, 'a function', fn);
    });
    const bodies = fns.map((fn) => {
      const body = this.engine.body();
      try {
        const result: unknown = fn(body);
        if (isThenable(result)) {
          result.then(undefined, () => {}); // what it does after returning is refused (the body is sealed), not unhandled
          throw bodyReturnedPromise();
        }
      } finally {
        body.engine.sealed = true;
      }
      return body.engine.seal();
    });
    return this.engine.addConditional(type, condition, bodies, loop, after) as GraphNode<undefined>;
  }

  /**
   * Adds a JavaScript step: each launch of an executable runs `fn` on the main thread once every
   * node added before it has completed, and launches the nodes added after it once `fn` settles
   * (as {@link Stream.hostLaunch} holds a stream). The device never waits for it: the graph is
   * launched in two parts, around a host step. A node added after the step follows it, and so
   * every node before it: its `after` may name nodes added since the step only.
   * @param options `userData` (copied now) and `timeout`, as for {@link Stream.hostLaunch}.
   * @throws TypeError for a non-function; RangeError for a bad timeout.
   * @example
   * graph.addKernel(scale, config, [n, 2, x]);
   * graph.addStep(() => console.log('the first kernel is done'));
   * graph.addKernel(scale, config, [n, 3, x]); // launched once the step has settled
   */
  addStep<D extends UserData = ArrayBuffer>(fn: (userData: D | undefined) => unknown, options: HostLaunchOptions<D> = {}): void {
    this.#checkOpen();
    if (typeof fn !== 'function') typeError('fn', 'a function', fn);
    checkOptions('options', options, HOST_LAUNCH_OPTIONS);
    const data = copyUserData(options.userData);
    this.engine.step({ run: () => fn(data), name: nameOf(fn), timeout: checkTimeout(options.timeout) });
  }

  /**
   * Makes an executable of the graph, to launch on any stream of its device any number of times.
   * Nodes added later are not in it.
   * @throws TypeError for a closed graph; CudaError when the driver refuses the graph.
   * @example
   * using exec = graph.instantiate();
   * for (let i = 0; i < 100; i++) exec.launch(stream);
   */
  instantiate(): GraphExec {
    this.#checkOpen();
    if (this.#parent) typeError('graph', 'a graph (a body is instantiated with its graph)', received('the body of a conditional node'));
    this.device.engine.checkUsable();
    if (this.engine.needsBuiltins)
      throw new GraphError('condition', `The built-in condition kernels of ${this.device} are still being compiled: await graph.ready() before instantiate()`);
    const { held } = this.engine;
    held.users++;
    try {
      return makeGraphExec(this, this.engine.nodes.slice(), this.engine.segments.map((s) => ({ ...s })), held);
    } catch (error) {
      held.release();
      this.device.engine.fail(error);
    }
  }

  /**
   * Releases the graph. What its nodes use stays alive while executables made from it are open.
   * Idempotent.
   * @example
   * const exec = graph.instantiate();
   * graph.close(); // exec still launches: it keeps what the nodes use
   */
  close(): void {
    this.engine.close();
  }

  /**
   * The same as `close()`, for `using`.
   * @example
   * using graph = device.createGraph(); // closed at the end of the block
   */
  [Symbol.dispose](): void {
    this.close();
  }

  #checkOpen(): void {
    this.engine.checkOpen();
  }

  #checkAdd(options: NodeOptions): readonly GraphNode[] {
    this.#checkOpen();
    this.engine.checkUnsealed();
    checkOptions('options', options, ['after']);
    const { after = [] } = options;
    if (!isArray(after)) typeError('after', 'an array of graph nodes', after);
    const first = this.engine.segments.at(-1)!.first;
    const nodes = elementsOf(after); // a hole is refused, not skipped
    nodes.forEach((node, i) => {
      if (!isInstance(node, GraphNode)) typeError(`after[${i}]`, 'a GraphNode', node);
      if (node.graph !== this) rangeError(`after[${i}]`, 'a node of this graph', received('a node of another graph'));
      if (node.index < first) rangeError(`after[${i}]`, 'a node added after the last step', received(`node ${node.index}, before it`));
    });
    return nodes as GraphNode[];
  }

  #checkEvent(event: Event): void {
    if (!isInstance(event, Event)) typeError('event', 'an Event', event);
    if (event.closed) typeError('event', 'an open Event', received('a closed Event'));
    if (event.device !== this.device) rangeError('event', `an event of ${this.device}`, event);
  }
  static {
    makeGraph = (device) => Graph.#create(device);
  }
}

