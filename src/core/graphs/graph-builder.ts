// A graph's builder: the engine below the public Graph. It holds the nodes, the segments that
// JavaScript steps split them into, the resources they keep alive, the bodies of conditional
// nodes and the graph's count of conditions and loops, and adds checked work. Graph checks what a
// user gives and delegates here; a capture and the replay operator record through it directly.
import { GraphError, isInstance, received, typeError } from '../base/errors.js';
import type { MemoryView } from '../memory/memory-view.js';
import type { DeviceEngine } from '../device/device-engine.js';
import type { RecordedEvent } from '../device/recorder.js';
import { GraphCondition, checkConditionArgs, checkConditionOfNode, type ConditionScope, makeGraphCondition, useCondition } from '../device/condition.js';
import { HeldResources, conditionalWork, eventWork, holdWork, setConditionWork, type BodyWorks, type NodeWork } from './node-work.js';
import { BODY_REFUSALS, checkConditionMemory, checkMaxIterations, parseTest, type ConditionTest, type ConditionalType, type LoopBound } from './conditions.js';
import { conditionKernelsReady } from './condition-kernels.js';

/** A JavaScript step between two segments. */
export interface GraphStep {
  readonly run: () => unknown;
  readonly name: string;
  readonly timeout: number | undefined;
}

/** Nodes `first`..`end - 1`, launched as one native graph, then the step after them. */
export interface Segment {
  readonly first: number;
  end: number;
  step: GraphStep | undefined;
}

/** What a builder knows of a node: its place, its work and what it follows (the public GraphNode is one). */
export interface BuiltNode {
  readonly index: number;
  readonly work: NodeWork;
  readonly dependencies: readonly BuiltNode[];
}

/** Options of a `while` loop's bound, as given. */
export interface LoopBoundOptions {
  readonly maxIterations?: number;
  readonly name?: string;
}

/** How a builder makes the public objects it holds: its nodes, and the graphs of its bodies. */
export interface BuilderFaces<N extends BuiltNode, G> {
  /** The public graph (or body) this builder builds: the scope of its conditions. */
  readonly scope: ConditionScope;
  makeNode(index: number, work: NodeWork, after: readonly N[]): N;
  makeBody(): G;
  builderOf(graph: G): GraphBuilder<N, G>;
}

const unclosed = new FinalizationRegistry<HeldResources>((held) => held.release());

/** The engine of one graph or body: see the file's opening comment. */
export class GraphBuilder<N extends BuiltNode = BuiltNode, G = unknown> {
  readonly device: DeviceEngine;
  readonly nodes: N[] = [];
  /** The segments, the open one last. */
  readonly segments: Segment[] = [{ first: 0, end: 0, step: undefined }];
  /** What the nodes of the whole graph keep alive, shared with its bodies. */
  readonly held: HeldResources;
  /** The builder of the graph this is a body of, for the body of a conditional node. */
  readonly parent: GraphBuilder<N, G> | undefined;
  readonly root: GraphBuilder<N, G>;
  readonly #faces: BuilderFaces<N, G>;
  /** A body's function has returned: it takes no more nodes. */
  sealed = false;
  /** A body's conditional node, once added. */
  owner: N | undefined;
  #closed = false;
  /** The top-level graph's count of conditions and of while loops made so far. */
  #conditions = 0;
  #loops = 0;
  /** Whether its nodes need the built-in condition kernels (on CUDA: a setter, a bounded loop). */
  #builtins = false;

  constructor(device: DeviceEngine, faces: BuilderFaces<N, G>, parent?: GraphBuilder<N, G>) {
    this.device = device;
    this.#faces = faces;
    this.parent = parent;
    this.root = parent ? parent.root : this;
    this.held = parent ? parent.root.held : new HeldResources();
    if (!parent) unclosed.register(faces.scope, this.held, this);
  }

  /** The public graph (or body) this builds. */
  get scope(): ConditionScope {
    return this.#faces.scope;
  }

  /** True once the graph is closed (for a body, its graph). */
  get closed(): boolean {
    return this.root.#closed;
  }

  /** Whether instantiating needs the built-in condition kernels, and they are not loaded yet. */
  get needsBuiltins(): boolean {
    return this.root.#builtins && !conditionKernelsReady(this.device);
  }

  /** Whether the graph has nodes that need the built-in condition kernels. */
  get usesBuiltins(): boolean {
    return this.root.#builtins;
  }

  /** Releases what the nodes hold, unless executables still use it. Idempotent. */
  close(): void {
    const root = this.root;
    if (root.#closed) return;
    root.#closed = true;
    unclosed.unregister(root);
    root.held.release();
  }

  /** Throws the TypeError of a closed graph. */
  checkOpen(): void {
    if (this.root.#closed) typeError('graph', 'an open Graph', received('a closed Graph'));
  }

  /** A new body of a conditional node of this graph (or body), to record into. */
  body(): G {
    this.checkOpen();
    return this.#faces.makeBody();
  }

  /** The builder of `body`, a graph made by {@link body}. */
  builderOf(body: G): GraphBuilder<N, G> {
    return this.#faces.builderOf(body);
  }

  /** Throws the GraphError of a body whose function has returned. */
  checkUnsealed(): void {
    if (this.sealed) throw new GraphError('body', "The body's function has returned: a body takes its nodes while its function runs");
  }

  /** Ends a body: it takes no more nodes; its nodes as the conditional node holds them. */
  seal(): BodyWorks {
    this.sealed = true;
    const nodes = this.nodes;
    return Object.freeze({ graph: this.scope, works: Object.freeze(nodes.map((n) => n.work)), deps: Object.freeze(nodes.map((n) => Object.freeze(n.dependencies.map((d) => d.index)))) });
  }

  /**
   * Adds checked work after `after`, holding what it uses until the graph and its executables
   * release it.
   */
  add(work: NodeWork, after: readonly N[]): N {
    this.checkUnsealed();
    if (this.parent && (work.kind === 'hostFunction' || work.kind === 'record' || work.kind === 'wait'))
      throw new GraphError('body', `${BODY_REFUSALS[work.kind]} cannot be in the body of a conditional node (node ${this.nodes.length} of the body): a body holds kernels, copies, fills, empty nodes, library calls and conditional nodes`);
    holdWork(work, this.held.letGo);
    const index = this.nodes.length;
    const node = this.#faces.makeNode(index, work, after);
    this.nodes.push(node);
    this.segments.at(-1)!.end = this.nodes.length;
    return node;
  }

  /** Ends the open segment with `step`. */
  step(step: GraphStep): void {
    if (this.parent)
      throw new GraphError('body', `A JavaScript step (${step.name}) cannot be in the body of a conditional node (node ${this.nodes.length} of the body): the device decides there, without JavaScript`);
    const open = this.segments.at(-1)!;
    open.step = step;
    this.segments.push({ first: this.nodes.length, end: this.nodes.length, step: undefined });
  }

  /** The event work for `event`, holding its native event for this graph. */
  eventWork(kind: 'record' | 'wait', event: RecordedEvent): NodeWork {
    return eventWork(kind, event, this.held);
  }

  /** A new condition made here. */
  newCondition(initial: unknown): GraphCondition {
    const root = this.root;
    const condition = makeGraphCondition(this.scope, initial, root.#conditions); // a refused one takes no number
    root.#conditions++;
    return condition;
  }

  /** A checked loop bound with its name, counted among the graph's loops. */
  loopBound(options: LoopBoundOptions): LoopBound | undefined {
    const maxIterations = checkMaxIterations(options.maxIterations);
    const { name } = options;
    if (name !== undefined && typeof name !== 'string') typeError('name', 'a string', name);
    const index = this.root.#loops++;
    if (maxIterations === undefined) return undefined;
    this.root.#builtins = true;
    return Object.freeze({ name: name ?? `while loop ${index}`, maxIterations });
  }

  /** The work of a node that sets `condition` from `memory`, checked for a node here. */
  setConditionWork(condition: GraphCondition, memory: MemoryView, test: ConditionTest): NodeWork {
    if (!isInstance<GraphCondition>(condition, GraphCondition)) typeError('condition', 'a GraphCondition', condition);
    checkConditionArgs([condition], this.scope);
    const source = checkConditionMemory(memory, this.device);
    const parsed = parseTest(test);
    this.root.#builtins = true;
    return setConditionWork(condition, source, parsed);
  }

  /** Adds the conditional node over `bodies` (sealed bodies of this graph) after `after`, once `condition` is checked for it. */
  addConditional(type: ConditionalType, condition: GraphCondition, bodies: readonly BodyWorks[], loop: LoopBound | undefined, after: readonly N[]): N {
    checkConditionOfNode(condition, this.scope);
    const node = this.add(conditionalWork(type, condition, bodies, loop), after);
    for (const body of bodies) this.builderOf(body.graph as G).owner = node;
    useCondition(condition, `the ${type === 'if' && bodies.length === 2 ? 'if/else' : type} node ${node.index}`);
    return node;
  }
}
