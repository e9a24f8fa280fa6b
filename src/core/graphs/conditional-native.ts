// A graph's nodes as a native CUDA graph, conditional nodes and their bodies included. Each node's
// native index is kept in a layout (a conditional node's also for the nodes of its bodies), by
// which dependencies and an executable's updates name them: a bounded while loop adds nodes of its
// own (a counter reset before it; a guard and an inner IF around its body), so native indices are
// not the graph's. A condition's handle is made for the native graph its node goes in, when a node
// first needs it; kernels' launch blocks hold its token until then, and get the handle here.
import { GraphError } from '../base/errors.js';
import type { DeviceEngine } from '../device/device-engine.js';
import { LoopReports } from './loop-reports.js';
import type { GraphCondition } from '../device/condition.js';
import type { NativeGraph, NativeGraphExec } from '../native/types.js';
import { addon } from '../native/addon.js';
import { countBoundedLoops } from './conditional-checks.js';
import { HEADER_BYTES } from '../kernels/packer.js';
import { offsetsOf } from '../kernels/launch-block.js';
import { LaunchConfig } from '../kernels/launch-config.js';
import { CONDITION_DTYPES } from './conditions.js';
import { conditionKernelsOf, type ConditionKernels } from './condition-kernels.js';
import type { BodyWorks, NodeKernel, NodeWork } from './node-work.js';

/** Where a node is in the native graph: its index, and for a conditional node its bodies' nodes. */
export interface NativeLayout {
  readonly index: number;
  readonly bodies?: readonly (readonly NativeLayout[])[];
}

/** What building one native graph keeps: condition handles, and the executable's loop counters. */
export interface NativeBuild {
  readonly native: NativeGraph;
  /** The native graph the add methods add to now (0: the graph itself). */
  target: number;
  /** The device's built-in condition kernels, where the graph needs them. */
  readonly kernels: ConditionKernels | undefined;
  /** The native graph made for each scope (the graph itself, or a body). */
  readonly graphIds: Map<object, number>;
  readonly handles: Map<GraphCondition, bigint>;
  /**
   * The handles by the conditions' names, for an update whose graph made its own conditions (a
   * graph's conditions are named by the order they were made in, so names pair them up).
   */
  readonly byName: Map<string, bigint>;
  /** Built: a condition the graph does not hold cannot get a handle any more. */
  sealed: boolean;
  /** Gives a bounded loop its counter slot, and the guard's arguments after its conditions. */
  readonly newLoop: (name: string, maxIterations: number) => { slot: number; guardArgs: readonly unknown[] };
}

const ONE_THREAD = LaunchConfig.from({ grid: 1, block: 1 });
const TYPES = { if: 0, while: 1, switch: 2 } as const;

function kernelsOf(build: NativeBuild): ConditionKernels {
  const kernels = build.kernels;
  if (!kernels) throw new GraphError('condition', 'The built-in condition kernels are not loaded: await graph.ready() before instantiate()');
  return kernels;
}

/** The handle of `condition` in this native graph, made on the graph its node goes in. */
function handleOf(build: NativeBuild, condition: GraphCondition): bigint {
  let handle = build.handles.get(condition) ?? (build.sealed ? build.byName.get(condition.name) : undefined);
  if (handle === undefined) {
    if (build.sealed) throw new GraphError('topology', `${condition.name} is not a condition of the executable's graph: an update cannot add one`);
    // A condition of a value's recording (replay) belongs to the graph itself, made later.
    const graphId = build.graphIds.get(condition.scope) ?? (condition.scope.parent === undefined ? 0 : undefined);
    if (graphId === undefined) throw new GraphError('condition', `${condition.name} is used where its native graph does not exist yet`);
    handle = build.native.createCondition(graphId, condition.initial, true);
    build.handles.set(condition, handle);
    build.byName.set(condition.name, handle);
  }
  return handle;
}

/** A kernel node's launch block with its conditions' handles in place of their tokens. */
export function nativeBlock(build: NativeBuild, kernel: NodeKernel, block: Uint8Array, args: readonly unknown[]): Uint8Array {
  const signature = kernel.signature;
  if (!signature.includes('condition')) return block;
  const patched = block.slice();
  const view = new DataView(patched.buffer);
  const { offsets } = offsetsOf(signature);
  signature.forEach((p, i) => {
    if (p === 'condition') view.setBigUint64(HEADER_BYTES + offsets[i]!, handleOf(build, args[i] as GraphCondition), true);
  });
  return patched;
}

/** Adds a built-in kernel node with `args` (conditions among them as `handles` names them). */
function addBuiltin(build: NativeBuild, kernel: NodeKernel, args: readonly unknown[], deps: Uint32Array, handles: readonly unknown[] = args): number {
  return build.native.addKernel(kernel.engine.native, builtinBlock(build, kernel, args, handles), deps);
}

function builtinBlock(build: NativeBuild, kernel: NodeKernel, args: readonly unknown[], handles: readonly unknown[] = args): Uint8Array {
  return nativeBlock(build, kernel, kernel.engine.packed(ONE_THREAD, args as never), handles);
}

/** A setter node's arguments for the built-in kernel. */
function setterArgs(work: Extract<NodeWork, { kind: 'setCondition' }>): unknown[] {
  return [work.condition, work.ptr, CONDITION_DTYPES.indexOf(work.dtype), work.test.op, work.test.operand];
}

/** Adds `work` after the native nodes `deps`; returns where it is. */
export function addToNativeGraph(build: NativeBuild, work: NodeWork, deps: Uint32Array, add: (work: NodeWork, deps: Uint32Array) => number): NativeLayout {
  switch (work.kind) {
    case 'kernel':
      return { index: build.native.addKernel(work.kernel.engine.native, nativeBlock(build, work.kernel, work.block, work.args), deps) };
    case 'setCondition':
      return { index: addBuiltin(build, kernelsOf(build).setCondition, setterArgs(work), deps) };
    case 'conditional':
      return addConditional(build, work, deps, add);
    default:
      return { index: add(work, deps) };
  }
}

function addConditional(build: NativeBuild, work: Extract<NodeWork, { kind: 'conditional' }>, deps: Uint32Array, add: (work: NodeWork, deps: Uint32Array) => number): NativeLayout {
  const native = build.native;
  const handle = handleOf(build, work.condition);
  const here = build.target;
  if (work.loop === undefined) {
    const index = native.addConditional(handle, TYPES[work.type], work.bodies.length, deps);
    const bodies = work.bodies.map((body, b) => addBody(build, body, native.bodyGraph(index, b), add));
    retarget(build, here);
    return { index, bodies };
  }
  // A bounded loop: reset its counter, then WHILE { guard; IF (within the bound) { body } }.
  const kernels = kernelsOf(build);
  const { slot, guardArgs } = build.newLoop(work.loop.name, work.loop.maxIterations);
  const reset = addBuiltin(build, kernels.loopReset, [slot], deps);
  const index = native.addConditional(handle, TYPES.while, 1, Uint32Array.of(reset));
  const loopBody = native.bodyGraph(index, 0);
  retarget(build, loopBody);
  const inner = native.createCondition(loopBody, 0, true);
  // The guard's second condition is the inner IF's: packed as the loop's, then given its handle.
  const args = [work.condition, work.condition, ...guardArgs];
  build.handles.set(INNER, inner);
  const guard = addBuiltin(build, kernels.loopGuard, args, new Uint32Array(0), [work.condition, INNER]);
  build.handles.delete(INNER);
  const within = native.addConditional(inner, TYPES.if, 1, Uint32Array.of(guard));
  const body = addBody(build, work.bodies[0]!, native.bodyGraph(within, 0), add);
  retarget(build, here);
  return { index, bodies: [body] };
}

/** Stands for a bounded loop's inner condition, a handle of the native graph alone. */
const INNER = Object.freeze({ name: 'the inner condition of a bounded loop' }) as unknown as GraphCondition;

function retarget(build: NativeBuild, graphId: number): void {
  build.native.target(graphId);
  build.target = graphId;
}

/** Adds a body's nodes to native graph `graphId`, in order, each after its dependencies. */
function addBody(build: NativeBuild, body: BodyWorks, graphId: number, add: (work: NodeWork, deps: Uint32Array) => number): NativeLayout[] {
  build.graphIds.set(body.graph, graphId);
  const layouts: NativeLayout[] = [];
  body.works.forEach((work, i) => {
    retarget(build, graphId);
    const deps = Uint32Array.from(body.deps[i]!, (d) => layouts[d]!.index);
    layouts.push(addToNativeGraph(build, work, deps, add));
  });
  return layouts;
}

/**
 * Brings the native node at `layout` from `was` to `now` (the same shape): the node itself, or
 * for a conditional node the nodes of its bodies that differ.
 */
export function updateNative(exec: NativeGraphExec, layout: NativeLayout, was: NodeWork, now: NodeWork, build: NativeBuild, set: (exec: NativeGraphExec, index: number, work: NodeWork) => void, needs: (was: NodeWork, now: NodeWork) => boolean): void {
  if (now.kind === 'conditional' && was.kind === 'conditional') {
    now.bodies.forEach((body, b) =>
      body.works.forEach((work, i) => updateNative(exec, layout.bodies![b]![i]!, was.bodies[b]!.works[i]!, work, build, set, needs)));
    return;
  }
  if (!needs(was, now)) return;
  if (now.kind === 'kernel') return exec.setKernel(layout.index, now.kernel.engine.native, nativeBlock(build, now.kernel, now.block, now.args));
  if (now.kind === 'setCondition') {
    const kernel = kernelsOf(build).setCondition;
    return exec.setKernel(layout.index, kernel.engine.native, builtinBlock(build, kernel, setterArgs(now)));
  }
  set(exec, layout.index, now);
}

/** What a CUDA executable is built into: per segment its native executable and build, and its nodes' places. */
export interface Built {
  natives: (NativeGraphExec | undefined)[];
  builds: (NativeBuild | undefined)[];
  layouts: NativeLayout[];
  loops: LoopReports | undefined;
  /** Per segment, whether it counts its launches for its loops' reports. */
  counted: boolean[];
}

/**
 * Builds a native executable for each segment of a graph with nodes (`deps`: each node's
 * dependencies, as indices of the graph's nodes), giving bounded loops their counters; `add` adds
 * the plain kinds of node.
 */
export function buildNatives(device: DeviceEngine, graph: object, works: readonly NodeWork[], deps: readonly (readonly number[])[], segments: readonly { readonly first: number; readonly end: number }[], add: (native: NativeGraph, work: NodeWork, deps: Uint32Array) => number): Built {
  const kernels = conditionKernelsOf(device);
  const loops = countBoundedLoops(works) > 0 && kernels ? new LoopReports(device, kernels) : undefined;
  const built: Built = { natives: [], builds: [], layouts: [], loops, counted: [] };
  try {
    for (const segment of segments) {
      if (segment.end === segment.first) {
        built.natives.push(undefined);
        built.builds.push(undefined);
        built.counted.push(false);
        continue;
      }
      // The executable keeps the native graph: its updates name the graph's nodes.
      const native = new addon.Graph(device.native);
      const build: NativeBuild = {
        native, target: 0, kernels, graphIds: new Map([[graph, 0]]), handles: new Map(), byName: new Map(), sealed: false,
        newLoop: (name, maxIterations) => loops!.add(name, maxIterations),
      };
      try {
        // A segment with bounded loops counts its launches first: every node of it follows.
        const counted = loops !== undefined && countBoundedLoops(works.slice(segment.first, segment.end)) > 0;
        const begin = counted ? addBuiltin(build, kernels!.launchBegin, loops.beginArgs, new Uint32Array(0)) : -1;
        built.counted.push(counted);
        for (let i = segment.first; i < segment.end; i++) {
          retarget(build, 0);
          const after = deps[i]!.length === 0 && begin >= 0 ? Uint32Array.of(begin) : Uint32Array.from(deps[i]!, (d) => built.layouts[d]!.index);
          built.layouts[i] = addToNativeGraph(build, works[i]!, after, (work, d) => add(native, work, d));
        }
        built.natives.push(new addon.GraphExec(native));
        build.sealed = true;
        built.builds.push(build);
      } catch (error) {
        native.destroy();
        throw error;
      }
    }
  } catch (error) {
    for (const native of built.natives) native?.destroy();
    loops?.close();
    throw error;
  }
  return built;
}
