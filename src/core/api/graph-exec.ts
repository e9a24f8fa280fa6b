// Executables: a graph instantiated for launching. On CUDA each segment is one native executable
// (cuGraphLaunch); on the host device a launch replays the nodes in order. Updates take effect
// for the launches made after them, queued launches included: each launch carries the node
// parameters it was made with, and applies what differs from the native executable's when it
// reaches the driver.
import { brand, GraphError, elementsOf, isArray, isInstance, rangeError, received, typeError } from '../base/errors.js';
import type { NativeGraphExec } from '../native/types.js';
import type { Allocation } from '../memory/allocation.js';
import type { Signature } from '../kernels/kernel-types.js';
import type { KernelArgs } from './kernel.js';
import { LaunchConfig, type LaunchOptions } from '../kernels/launch-config.js';
import { hostStep } from '../queue/host-steps.js';
import { settling } from '../queue/scheduler.js';
import { GraphNode, addToNative, needsUpdate, replayOn, setInNative, shapeDifference, type NodeWork } from './graph-node.js';
import { Graph, type GraphStep, type Segment } from './graph.js';
import { allocationsOf, holdWork, kernelWork, modulesOf, sameHolds, type HeldResources, type NodeModule } from '../graphs/node-work.js';
import { buildNatives, updateNative, type Built, type NativeBuild, type NativeLayout } from '../graphs/conditional-native.js';
import type { LoopReports } from '../graphs/loop-reports.js';
import { BodyStreams, HostConditions } from '../graphs/conditional-host.js';
import { checkConditionUses, childOf, withChild } from '../graphs/conditional-checks.js';
import { onDoneCommand, watchByNotification } from '../queue/host-steps.js';
import { Stream, checkStreamOf } from './stream.js';
import type { Device } from './device.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';

const unclosed = new FinalizationRegistry<HeldResources>((held) => held.release());

/**
 * The executable of `graph` over `nodes` and `segments`, which {@link Graph.instantiate} makes;
 * `held` is already counted for it.
 */
export let makeGraphExec: (graph: Graph, nodes: readonly GraphNode[], segments: Segment[], held: HeldResources) => GraphExec;

/**
 * Gives the nodes of `exec` `works` (of the graph's shape: the caller checked) for the launches
 * made from now on.
 */
export let setExecWorks: (exec: GraphExec, works: readonly NodeWork[]) => void;

/**
 * A {@link Graph} made ready to launch, on any stream of its device, any number of times. Get one
 * with {@link Graph.instantiate}; give its kernel nodes new arguments with {@link setArgs}, or
 * all of its nodes another graph's parameters with {@link update}.
 */
export class GraphExec {
  /** The graph it was made from. */
  readonly graph: Graph;
  /** The device it launches on. */
  readonly device: Device;
  readonly #segments: readonly Segment[];
  readonly #steps: (GraphStep | undefined)[];
  /** One native executable per segment with nodes (CUDA), undefined on the host device. */
  readonly #natives: (NativeGraphExec | undefined)[] | undefined;
  /** How each segment was built: where its nodes are, and its conditions' handles (CUDA). */
  readonly #builds: (NativeBuild | undefined)[] | undefined;
  readonly #layouts: (NativeLayout | undefined)[];
  /** The bounded loops' reports (CUDA), and the segments that count their launches for them. */
  readonly #loops: LoopReports | undefined;
  readonly #counted: readonly boolean[];
  /** The streams its conditional nodes' bodies run on (the host device). */
  readonly #bodyStreams: BodyStreams<Stream> | undefined;
  /** Each node's parameters for the next launch; replaced, never changed, by updates. */
  #works: readonly NodeWork[];
  /** Each node's parameters as the native executables hold them. */
  readonly #applied: NodeWork[];
  /** Per segment, the parameters (a #works array) it was last brought up to date with. */
  readonly #current: (readonly NodeWork[] | undefined)[];
  /** What updates hold, per node (the graph's own holds cover the rest). */
  readonly #updateHolds = new Map<number, (() => void)[]>();
  #memory: readonly Allocation[] | undefined;
  /** The registered arrays' allocations among them, checked at each launch (see user-arrays.ts). */
  #registered: readonly Allocation[] | undefined;
  readonly #modules: readonly NodeModule[];
  readonly #held: HeldResources;
  /** Launches given to streams that have not reached the driver yet. */
  #queued = 0;
  /** The launch of the native executable when the graph is one segment without steps (CUDA). */
  readonly #only: ((lo: number, hi: number) => void) | undefined;
  /** The stream launched on last, whose use of the memory and modules is noted. */
  #lastStream: Stream | undefined;
  #closed = false;
  static {
    brand(this, (value) => #segments in value);
  }

  private constructor(token: ConstructorToken, graph: Graph, works: NodeWork[], segments: Segment[], built: Built | undefined, held: HeldResources) {
    checkConstructorToken(token, 'a GraphExec', 'graph.instantiate()');
    this.graph = graph;
    this.device = graph.device;
    this.#segments = segments;
    this.#steps = segments.map((s) => s.step);
    this.#natives = built?.natives;
    this.#builds = built?.builds;
    this.#layouts = built?.layouts ?? [];
    this.#loops = built?.loops;
    this.#counted = built?.counted ?? [];
    this.#bodyStreams = built === undefined && works.some((w) => w.kind === 'conditional' || w.kind === 'setCondition') ? new BodyStreams(graph.device) : undefined;
    // One native graph launched straight to the driver, unless each launch is followed by its loops' check.
    this.#only = segments.length === 1 && this.#loops === undefined ? this.#natives?.[0]?.bind() : undefined;
    this.#works = Object.freeze(works.slice());
    this.#applied = works.slice();
    this.#current = segments.map(() => this.#works);
    this.#held = held;
    this.#modules = [...modulesOf(works)];
    unclosed.register(this, held, this);
  }

  static #create(graph: Graph, nodes: readonly GraphNode[], segments: Segment[], held: HeldResources): GraphExec {
    const works = nodes.map((node) => node.work);
    checkConditionUses(works, segments);
    if (graph.device.kind !== 'cuda') return new GraphExec(CONSTRUCTOR_TOKEN, graph, works, segments, undefined, held);
    const deps = nodes.map((node) => node.dependencies.map((d) => d.index));
    const built = buildNatives(graph.device.engine, graph, works, deps, segments, addToNative);
    return new GraphExec(CONSTRUCTOR_TOKEN, graph, works, segments, built, held);
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Launches the graph's work on `stream`, in stream order: after the work enqueued before, and
   * before the work enqueued after. JavaScript steps run as host steps between the parts of the
   * graph they split. Returns at once, also while work waits in the stream's queue.
   * @throws TypeError for a closed executable or stream, or one whose nodes use a registered
   * array detached since; RangeError for a stream of another device; GraphError (`forbidden`)
   * on a stream that is capturing. Nothing is enqueued then.
   * @example
   * using exec = graph.instantiate();
   * for (const stream of streams) exec.launch(stream); // one driver call each
   */
  launch(stream: Stream): void {
    if (this.#closed) this.#checkOpen();
    if (stream !== this.#lastStream || this.#lastStream === undefined) {
      // Checked once per stream launched on: a Stream's device never changes.
      checkStreamOf(stream, this.device);
    }
    const lane = stream.engine;
    lane.checkOpen(); // the device's too
    const works = this.#works;
    const registered = (this.#registered ??= allocationsOf(works).filter((a) => a.userArray !== undefined));
    for (const allocation of registered)
      if (allocation.moved) typeError('executable', "an executable whose nodes' registered arrays are attached", received('one whose registered array was detached'));
    if (stream !== this.#lastStream) {
      // Frees and unloads wait for the streams that used the memory and modules: once per stream.
      for (const allocation of (this.#memory ??= allocationsOf(works))) allocation.use(lane);
      for (const module of this.#modules) module.engine.usedOn(lane);
      this.#lastStream = stream;
    }
    const only = this.#only;
    // One native graph, up to date, on a stream with nothing queued: straight to the driver.
    if (only !== undefined && lane.immediate && this.#current[0] === works) {
      lane.noteSubmitted();
      try {
        only(lane.lo, lane.hi);
      } catch (error) {
        lane.faults.fail(error);
      }
      return;
    }
    lane.recorder?.interrupt('launching an executable'); // a recording lane is never immediate
    // The conditions of this launch, for conditional nodes run as host steps: each at its initial
    // value until set.
    const conditions = this.#bodyStreams && new HostConditions(this.#bodyStreams);
    const segments = this.#segments;
    for (let i = 0; i < segments.length; i++) {
      if (segments[i]!.end > segments[i]!.first) this.#launchSegment(stream, i, works, conditions);
      const step = this.#steps[i];
      if (step) lane.run(hostStep(lane, step.run, { kind: 'hostLaunch', name: step.name }, step.timeout));
    }
  }

  /**
   * Gives a kernel node new arguments (and, optionally, a new grid, block or shared memory) for
   * the launches made from now on; launches made before keep theirs. The arguments are checked
   * and copied now.
   * @throws TypeError for a closed executable, a node that is not a kernel node of its graph or
   * bad arguments; GraphError (`topology`) for a config that changes cooperative or cluster launch.
   * @example
   * const [node] = graph.nodesOf(scale);
   * exec.setArgs(node!, [n, 4, y]); // the next launches scale y by 4
   * exec.launch(stream);
   */
  setArgs<S extends Signature>(node: GraphNode<S>, args: KernelArgs<S>, config?: LaunchConfig | LaunchOptions): void {
    this.#checkOpen();
    if (!isInstance(node, GraphNode)) typeError('node', 'a GraphNode', node);
    const path = this.#pathOf(node);
    const was = path.work;
    if (was.kind !== 'kernel') typeError('node', 'a kernel node', received(`a ${was.kind} node`));
    const checked = config === undefined ? was.config : LaunchConfig.from(config);
    was.kernel.engine.checkConfig(checked); // as a launch is: a launch that would run halfway is refused now
    if (!isArray(args)) typeError('args', 'an array of kernel arguments', args);
    const given = elementsOf(args); // a plain copy, read once: what is packed is what the graph holds
    const work = kernelWork(was.kernel, checked, given, was.kernel.engine.packed(checked, given as never));
    const difference = shapeDifference(was, work);
    if (difference) throw new GraphError('topology', `Cannot set node ${node.index} to ${difference}`);
    const next = this.#works.slice();
    next[path.index] = path.replace(work);
    this.#replace(next);
  }

  /**
   * Where `node` is among the executable's nodes: its work now, the index of the node of the graph
   * itself that holds it (itself, or the conditional node whose body does, at any depth), and that
   * node's work with `node`'s replaced by another.
   */
  #pathOf(node: GraphNode): { work: NodeWork; index: number; replace: (work: NodeWork) => NodeWork } {
    const chain = [node]; // from the graph's own node down to `node`
    while (chain[0]!.graph.parent) chain.unshift(ownerOf(chain[0]!.graph));
    const top = chain[0]!;
    if (top.graph !== this.graph || top.index >= this.#works.length)
      rangeError('node', "a node of this executable's graph", received(top.graph === this.graph ? 'a node added after it was made' : 'a node of another graph'));
    const works = [this.#works[top.index]!];
    for (let j = 1; j < chain.length; j++) works.push(childOf(works[j - 1]!, chain[j]!.graph, chain[j]!.index));
    const replace = (next: NodeWork) => {
      for (let j = chain.length - 1; j > 0; j--) next = withChild(works[j - 1]!, chain[j]!.graph, chain[j]!.index, next);
      return next;
    };
    return { work: works.at(-1)!, index: top.index, replace };
  }

  /**
   * Gives every node the parameters of the same node of `graph` (addresses, values, launch
   * configurations, and the JavaScript steps), for the launches made from now on. `graph` must
   * have the same topology: the same nodes in the same order, with the same dependencies,
   * kernels, copy and fill sizes, events and host functions, and steps in the same places.
   * @throws TypeError for a closed executable or graph; RangeError for a graph of another
   * device; GraphError (`topology`) naming the first difference. Nothing changes then.
   * @example
   * const next = await stream.capture((s) => s.launch(scale, config, [n, 2, y])); // same shape, other memory
   * exec.update(next);
   * exec.launch(stream);
   */
  update(graph: Graph): void {
    this.#checkOpen();
    if (!isInstance(graph, Graph)) typeError('graph', 'a Graph', graph);
    if (graph.closed) typeError('graph', 'an open Graph', received('a closed Graph'));
    if (graph.device !== this.device) rangeError('graph', `a graph of ${this.device}`, received(`a graph of ${graph.device}`));
    const nodes = graph.nodes;
    const segments = graph.engine.segments;
    const differ = (what: string): never => {
      throw new GraphError('topology', `Cannot update the executable with a graph of another topology: ${what}`);
    };
    if (nodes.length !== this.#works.length) differ(`${nodes.length} nodes where it has ${this.#works.length}`);
    if (segments.length !== this.#segments.length || segments.some((s, i) => s.first !== this.#segments[i]!.first))
      differ('JavaScript steps in other places');
    const ours = this.graph.nodes;
    nodes.forEach((node, i) => {
      const difference = shapeDifference(this.#works[i]!, node.work);
      if (difference) differ(`node ${i} is ${difference}`);
      const deps = node.dependencies.map((d) => d.index).join();
      if (deps !== ours[i]!.dependencies.map((d) => d.index).join()) differ(`node ${i} has other dependencies`);
    });
    this.#replace(nodes.map((node) => node.work));
    segments.forEach((segment, i) => (this.#steps[i] = segment.step));
  }

  #setWorks(works: readonly NodeWork[]): void {
    const was = this.#works;
    // A native executable keeps the parameters it holds where they would not change it.
    this.#replace(this.#natives === undefined ? works : works.map((work, i) => (needsUpdate(was[i]!, work) ? work : was[i]!)));
  }

  /**
   * Releases the executable; launches already made still run (the driver frees it once they have
   * completed). What its nodes use is released once the graph is closed too. Idempotent.
   * @example
   * exec.launch(stream);
   * exec.close(); // the launch still runs
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    unclosed.unregister(this);
    if (this.#queued === 0) this.#destroy();
    for (const holds of this.#updateHolds.values()) for (const letGo of holds) letGo();
    this.#updateHolds.clear();
    this.#held.release();
  }

  /**
   * The same as `close()`, for `using`.
   * @example
   * {
   *   using exec = graph.instantiate();
   *   exec.launch(stream);
   * } // closed here; the launch still runs
   */
  [Symbol.dispose](): void {
    this.close();
  }

  #launchSegment(stream: Stream, segment: number, works: readonly NodeWork[], conditions: HostConditions<Stream> | undefined): void {
    const { first, end } = this.#segments[segment]!;
    const native = this.#natives?.[segment];
    if (!native) {
      for (let i = first; i < end; i++) replayOn(stream, works[i]!, conditions);
      return;
    }
    this.#queued++;
    const lane = stream.engine;
    const launched = () => {
      if (--this.#queued === 0 && this.#closed) this.#destroy();
    };
    // The launch's number among the executable's, for its loops' report: given as it reaches the
    // driver, the order in which the device counts them.
    const loops = this.#counted[segment] ? this.#loops : undefined;
    let n = 0;
    lane.run(settling(() => {
      try {
        if (this.#current[segment] !== works) {
          const build = this.#builds![segment]!;
          for (let i = first; i < end; i++) {
            if (!needsUpdate(this.#applied[i]!, works[i]!)) continue;
            updateNative(native, this.#layouts[i]!, this.#applied[i]!, works[i]!, build, setInNative, needsUpdate);
            this.#applied[i] = works[i]!;
          }
          this.#current[segment] = works;
        }
        if (loops) n = loops.launched(lane);
        native.launch(lane.native);
      } finally {
        launched();
      }
    }, launched));
    if (loops) lane.run(onDoneCommand(lane, () => n > 0 && loops.check(n), watchByNotification(lane), 'while loop bound'));
  }

  /**
   * Replaces nodes' parameters by `next` (handed over: frozen here), holding what the new ones use
   * and releasing the old. A node whose new parameters use the memory its old ones did (a
   * replayed value's, launched on the executable made for its buffers) keeps what it holds.
   */
  #replace(next: readonly NodeWork[]): void {
    const works = this.#works;
    let changed = false, memoryChanged = false;
    for (let index = 0; index < next.length; index++) {
      const was = works[index]!, work = next[index]!;
      if (work === was) continue;
      changed = true;
      if (sameHolds(was, work)) continue;
      memoryChanged = true;
      const holds: (() => void)[] = [];
      holdWork(work, holds);
      for (const letGo of this.#updateHolds.get(index) ?? []) letGo();
      this.#updateHolds.set(index, holds);
    }
    if (!changed) return;
    this.#works = Object.freeze(next);
    if (!memoryChanged) return;
    this.#memory = undefined;
    this.#registered = undefined;
    this.#lastStream = undefined; // the new memory's use is noted at the next launch
  }

  #destroy(): void {
    for (const native of this.#natives ?? []) native?.destroy();
    this.#loops?.close();
    this.#bodyStreams?.close();
  }

  #checkOpen(): void {
    if (this.#closed) typeError('executable', 'an open GraphExec', received('a closed GraphExec'));
    this.device.engine.checkUsable();
  }
  static {
    makeGraphExec = (graph, nodes, segments, held) => GraphExec.#create(graph, nodes, segments, held);
    setExecWorks = (exec, works) => exec.#setWorks(works);
  }
}


/** The conditional node whose body is `body`. */
function ownerOf(body: Graph): GraphNode {
  const owner = body.engine.owner;
  if (owner === undefined) rangeError('node', "a node of this executable's graph", received('a node of a body whose conditional node was never added'));
  return owner;
}
