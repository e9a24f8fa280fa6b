// Graph nodes: what each one does, how it goes into a native CUDA graph and an executable's
// update, and how the host device replays it (a command list, in order).
import type { NativeGraph, NativeGraphExec } from '../native/types.js';
import type { Stream } from './stream.js';
import type { Kernel, Signature } from './kernel.js';
import type { LaunchConfig } from '../kernels/launch-config.js';
import type { Graph } from './graph.js';
import type { NodeWork } from '../graphs/node-work.js';
import { brand } from '../base/errors.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';
import { replayConditional, replaySetCondition, type HostConditions } from '../graphs/conditional-host.js';

export type { NodeWork } from '../graphs/node-work.js';

/**
 * What a graph node does (`library`: a cuBLAS or cuFFT call; `conditional`: an if, if/else, while
 * or switch over bodies of nodes; `setCondition`: a condition set from a value in memory).
 */
export type GraphNodeKind = 'kernel' | 'copy' | 'fill' | 'hostFunction' | 'record' | 'wait' | 'empty' | 'library' | 'conditional' | 'setCondition';

/** The node `index` of `graph`, which runs `work` after `dependencies`: what Graph's `add…` methods return. */
export let makeGraphNode: (graph: Graph, index: number, work: NodeWork, dependencies: readonly GraphNode[]) => GraphNode;

/**
 * A node of a {@link Graph}: a kernel launch, a copy, a fill, a native host function, an event
 * record or wait, a library call (captured from a stream), or an empty node that only joins
 * dependencies. Nodes come from a graph's `add…` methods or from {@link Stream.capture}; an
 * executable's kernel nodes can be given new arguments ({@link GraphExec.setArgs}), typed by the
 * signature `S` of the kernel a kernel node launches (`undefined` for the other kinds).
 */
export class GraphNode<S extends Signature | undefined = Signature | undefined> {
  /** The graph the node belongs to. */
  readonly graph: Graph;
  /** Its position among the graph's nodes, from 0. */
  readonly index: number;
  /** The nodes that complete before it starts. */
  readonly dependencies: readonly GraphNode[];
  /** @internal */
  readonly work: NodeWork;
  static {
    brand(this, (value) => #node in value);
  }
  #node(): void {}

  static #make(graph: Graph, index: number, work: NodeWork, dependencies: readonly GraphNode[]): GraphNode {
    return new GraphNode(CONSTRUCTOR_TOKEN, graph, index, work, dependencies);
  }

  private constructor(token: ConstructorToken, graph: Graph, index: number, work: NodeWork, dependencies: readonly GraphNode[]) {
    checkConstructorToken(token, 'a GraphNode', 'graph.addKernel() or another graph.add…() method');
    this.graph = graph;
    this.index = index;
    this.work = work;
    this.dependencies = Object.freeze([...dependencies]);
  }

  /** The signature of the kernel a kernel node launches (undefined for other kinds). */
  get signature(): S {
    return (this.work.kind === 'kernel' ? this.work.kernel.signature : undefined) as S;
  }

  /** What the node does. */
  get kind(): GraphNodeKind {
    return this.work.kind;
  }

  /** The kernel a kernel node launches (undefined for other kinds). */
  get kernel(): Kernel | undefined {
    return this.work.kind === 'kernel' ? kernelOf(this.work) : undefined;
  }

  /** The launch configuration of a kernel node (undefined for other kinds). */
  get config(): LaunchConfig | undefined {
    return this.work.kind === 'kernel' ? this.work.config : undefined;
  }
  static {
    makeGraphNode = (graph, index, work, dependencies) => GraphNode.#make(graph, index, work, dependencies);
  }
}

/**
 * Adds `work` to a native graph, after the nodes `deps` names; returns its index. Kernels, setters
 * and conditional nodes go through conditional-native.ts, which gives them their conditions' handles.
 */
export function addToNative(graph: NativeGraph, work: NodeWork, deps: Uint32Array): number {
  switch (work.kind) {
    case 'kernel': return graph.addKernel(work.kernel.engine.native, work.block, deps);
    case 'copy': return graph.addCopy(work.dst, work.src, work.bytes, deps);
    case 'fill':
      if (work.count === 0) return graph.addEmpty(deps);
      return graph.addFill(work.ptr, work.size, work.count, work.low, work.high, deps);
    case 'hostFunction': return graph.addHost(work.fn, work.userData, deps);
    case 'record': return graph.addEvent(work.event, false, deps);
    case 'wait': return graph.addEvent(work.event, true, deps);
    case 'empty': return graph.addEmpty(deps);
    case 'library': return work.call.addTo(graph, deps);
    case 'conditional':
    case 'setCondition':
      throw new Error(`a ${work.kind} node is added by addToNativeGraph`);
  }
}

/**
 * What differs between two nodes' work beyond what an executable can update (their
 * addresses, scalars and launch configuration), said in words; undefined when nothing does.
 */
export function shapeDifference(was: NodeWork, now: NodeWork): string | undefined {
  if (was.kind !== now.kind) return `a ${now.kind} node where the graph has a ${was.kind} node`;
  switch (was.kind) {
    case 'kernel': {
      const kernel = (now as typeof was).kernel;
      if (kernel !== was.kernel) return `kernel ${kernel.name} where the graph launches ${was.kernel.name}`;
      const [a, b] = [was.config, (now as typeof was).config];
      if (a.cooperative !== b.cooperative || String(a.cluster) !== String(b.cluster))
        return `kernel ${kernel.name} with another cooperative or cluster setting`;
      if (kernel.engine.takesConditions && conditionNames(was.args, kernel.signature) !== conditionNames((now as typeof was).args, kernel.signature))
        return `kernel ${kernel.name} given other conditions (${conditionNames((now as typeof was).args, kernel.signature)} where the graph gives ${conditionNames(was.args, kernel.signature)})`;
      return undefined;
    }
    case 'copy':
      return was.bytes === (now as typeof was).bytes ? undefined : `a copy of ${(now as typeof was).bytes} bytes where the graph copies ${was.bytes}`;
    case 'fill': {
      const fill = now as typeof was;
      if (fill.size !== was.size || fill.count !== was.count)
        return `a fill of ${fill.count} ${fill.size}-byte elements where the graph fills ${was.count} ${was.size}-byte ones`;
      return undefined;
    }
    case 'hostFunction': {
      const host = now as typeof was;
      return host.fn === was.fn && host.userData === was.userData ? undefined : 'another native host function or user data';
    }
    case 'record':
    case 'wait':
      return (now as typeof was).event === was.event ? undefined : `a ${was.kind} of another event`;
    case 'empty':
      return undefined;
    case 'library': {
      const call = (now as typeof was).call;
      return call.shape === was.call.shape ? undefined : call.shapeChange(was.call);
    }
    case 'setCondition': {
      const setter = now as typeof was;
      if (setter.condition.name !== was.condition.name) return `a setter of ${setter.condition.name} where the graph sets ${was.condition.name}`;
      return setter.dtype === was.dtype ? undefined : `a setter from ${setter.dtype} where the graph's reads ${was.dtype}`;
    }
    case 'conditional':
      return conditionalDifference(was, now as typeof was);
  }
}

/** The names of the conditions among a kernel's arguments. */
function conditionNames(args: readonly unknown[], signature: readonly unknown[]): string {
  return signature.map((p, i) => (p === 'condition' ? (args[i] as { name: string }).name : '')).filter(Boolean).join(', ');
}

/** What differs between two conditional nodes beyond their bodies' parameters, in words. */
function conditionalDifference(was: Extract<NodeWork, { kind: 'conditional' }>, now: Extract<NodeWork, { kind: 'conditional' }>): string | undefined {
  const kind = (w: typeof was) => `${w.type === 'if' && w.bodies.length === 2 ? 'if/else' : w.type} node of ${w.condition.name} (initially ${w.condition.initial})${w.loop ? ` of at most ${w.loop.maxIterations} iterations` : ''}${w.type === 'switch' ? ` of ${w.bodies.length} cases` : ''}`;
  if (kind(was) !== kind(now)) return `a ${kind(now)} where the graph has a ${kind(was)}`;
  for (let b = 0; b < was.bodies.length; b++) {
    const [x, y] = [was.bodies[b]!, now.bodies[b]!];
    const where = was.bodies.length === 1 ? 'its body' : `its body ${b}`;
    if (x.works.length !== y.works.length) return `a conditional node whose ${where} has ${y.works.length} nodes where the graph's has ${x.works.length}`;
    for (let i = 0; i < x.works.length; i++) {
      if (x.deps[i]!.join() !== y.deps[i]!.join()) return `a conditional node whose ${where} has node ${i} after other nodes`;
      const difference = shapeDifference(x.works[i]!, y.works[i]!);
      if (difference) return `a conditional node whose ${where} has, as node ${i}, ${difference}`;
    }
  }
  return undefined;
}

/**
 * Whether an executable's node set to `was` must be set to `now` (same shape): the
 * kinds an executable updates, when their parameters differ.
 */
export function needsUpdate(was: NodeWork, now: NodeWork): boolean {
  if (was === now) return false;
  switch (now.kind) {
    case 'kernel': return !sameBytes((was as typeof now).block, now.block);
    case 'copy': {
      const copy = was as typeof now;
      return copy.dst !== now.dst || copy.src !== now.src;
    }
    case 'fill': {
      const fill = was as typeof now;
      return now.count > 0 && (fill.ptr !== now.ptr || fill.low !== now.low || fill.high !== now.high);
    }
    case 'library':
      return (was as typeof now).call.differs(now.call);
    case 'setCondition': {
      const setter = was as typeof now;
      return setter.ptr !== now.ptr || setter.test.op !== now.test.op || setter.test.operand !== now.test.operand;
    }
    case 'conditional': {
      const conditional = was as typeof now;
      return now.bodies.some((body, b) => body.works.some((work, i) => needsUpdate(conditional.bodies[b]!.works[i]!, work)));
    }
    default:
      return false;
  }
}

/**
 * The kernel a kernel node's work launches: a public Kernel, the only kind Graph.addKernel and a
 * recording stream take (graphs/ names it by what a node needs of it, NodeKernel).
 */
function kernelOf(work: Extract<NodeWork, { kind: 'kernel' }>): Kernel {
  return work.kernel as Kernel;
}

/**
 * Whether two launch blocks hold the same bytes. Compared byte by byte: blocks are a few dozen
 * bytes, and views to compare them by words would cost more than the loop (two allocations).
 */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Sets an executable's node `index` to `work`, of the shape it had. */
export function setInNative(exec: NativeGraphExec, index: number, work: NodeWork): void {
  switch (work.kind) {
    case 'kernel': return exec.setKernel(index, work.kernel.engine.native, work.block);
    case 'copy': return exec.setCopy(index, work.dst, work.src, work.bytes);
    case 'fill': return exec.setFill(index, work.ptr, work.size, work.count, work.low, work.high);
    case 'library': return work.call.setIn(exec, index);
    default:
  }
}

/**
 * Enqueues `work` on a stream of the host device, as a replay of its graph runs it; `conditions`
 * are the launch's, for conditional nodes, setters and the kernels that take conditions.
 * @internal Its type takes a Stream as a body stream, by the engine the published types leave out.
 */
export function replayOn(stream: Stream, work: NodeWork, conditions?: HostConditions<Stream>): void {
  const lane = stream.engine;
  const native = lane.native;
  switch (work.kind) {
    case 'kernel': return kernelOf(work).engine.replayOn(stream, work.config, work.block, conditions ? conditions.args(work.args, work.kernel.signature) : work.args);
    case 'conditional': return replayConditional(stream, work, conditions!, replayOn);
    case 'setCondition': return replaySetCondition(stream, work, conditions!);
    case 'copy': return lane.run(() => native.copy(work.dst, work.src, work.bytes));
    case 'fill':
      if (work.count > 0) lane.run(() => native.fill(work.ptr, work.size, work.count, work.low, work.high));
      return;
    case 'hostFunction': return lane.run(() => native.hostFunction(work.fn, work.userData));
    case 'record': return lane.run(() => native.record(work.event));
    case 'wait': return lane.run(() => native.waitEvent(work.event));
    case 'library': return work.call.enqueue(stream.engine);
    case 'empty':
  }
}
