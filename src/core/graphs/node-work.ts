// The work of graph nodes, from checked arguments: what each node does, and what it holds (memory,
// modules, native events) until the graph and its executables release them; and the interface
// behind which a library call is a node.
import { DTYPES } from '../base/dtype.js';
import { scalarBits } from '../base/scalar.js';
import type { Allocation } from '../memory/allocation.js';
import { isMemory, type MemoryView } from '../memory/memory-view.js';
import type { RecordedEvent, Recorder } from '../device/recorder.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import type { LaunchConfig } from '../kernels/launch-config.js';
import type { Signature } from '../kernels/kernel-types.js';
import type { MemoryLane } from '../memory/owner.js';
import type { NativeEvent, NativeGraph, NativeGraphExec, NativeKernel } from '../native/types.js';
import { addAllocations, type ConditionalType, type LoopBound, type ParsedTest } from './conditions.js';
import type { GraphCondition } from '../device/condition.js';
import type { DType } from '../base/dtype.js';

/**
 * What a graph holds of a kernel's module: a use, while the graph or an executable needs the
 * module loaded (a public Module is one).
 */
export interface NodeModule {
  readonly engine: {
    hold(): void;
    letGo(): void;
    /** Notes that `lane` runs the module's kernels (a module outlives its work). */
    usedOn(lane: MemoryLane): void;
  };
}

/** What a graph node needs of the kernel it launches (a public Kernel is one). */
export interface NodeKernel<S extends Signature = Signature> {
  readonly name: string;
  readonly signature: S;
  readonly module: NodeModule;
  readonly engine: {
    readonly native: NativeKernel;
    /** Whether its signature has a `'condition'` parameter. */
    readonly takesConditions: boolean;
    /** Whether a struct is among its parameters: only then can the same arguments pack other bytes. */
    readonly packsStructs: boolean;
    /** The launch block of checked `args` under `config`. */
    packed(config: LaunchConfig, args: never): Uint8Array;
    /** Refuses a configuration the kernel cannot launch with. */
    checkConfig(config: LaunchConfig): void;
  };
}

/**
 * What a recorder adds to device/recorder.ts's Recorder for kernel launches (the recorder file
 * lists it): every recorder a lane holds is a GraphRecorder (capture.ts), which implements it.
 */
export interface LaunchRecorder {
  /**
   * A kernel launch, with its checked arguments and their packed block: the launch's own, which
   * change with the next launch (copy what you keep).
   */
  kernel(kernel: NodeKernel, config: LaunchConfig, args: readonly unknown[], block: Uint8Array): void;
}

/** What a node does, with the addresses and packed arguments it uses. */
export type NodeWork =
  | {
      readonly kind: 'kernel';
      readonly kernel: NodeKernel;
      readonly config: LaunchConfig;
      /** The arguments as given (a private copy), for the host device's CPU implementation. */
      readonly args: readonly unknown[];
      /** The packed launch block, header included. */
      readonly block: Uint8Array;
      readonly memory: readonly Allocation[];
    }
  | { readonly kind: 'copy'; readonly dst: bigint; readonly src: bigint; readonly bytes: number; readonly memory: readonly Allocation[] }
  | {
      readonly kind: 'fill';
      readonly ptr: bigint;
      readonly size: number;
      readonly count: number;
      readonly low: number;
      readonly high: number;
      readonly memory: readonly Allocation[];
    }
  | { readonly kind: 'hostFunction'; readonly fn: bigint; readonly userData: bigint; readonly memory: readonly Allocation[] }
  | { readonly kind: 'record' | 'wait'; readonly event: NativeEvent; readonly memory: readonly Allocation[] }
  | { readonly kind: 'empty'; readonly memory: readonly Allocation[] }
  | { readonly kind: 'library'; readonly call: LibraryCall; readonly memory: readonly Allocation[] }
  | {
      readonly kind: 'conditional';
      readonly type: ConditionalType;
      readonly condition: GraphCondition;
      /** The bodies, in the driver's order: then (and else) for an `if`, the cases of a `switch`. */
      readonly bodies: readonly BodyWorks[];
      /** A `while`'s bound, enforced on the device. */
      readonly loop: LoopBound | undefined;
      /** Every allocation the bodies' nodes use. */
      readonly memory: readonly Allocation[];
    }
  | {
      readonly kind: 'setCondition';
      readonly condition: GraphCondition;
      /** The element read, and its type. */
      readonly ptr: bigint;
      readonly dtype: DType;
      readonly test: ParsedTest;
      readonly memory: readonly Allocation[];
    };

/** The nodes of a conditional node's body, as they were when its function returned. */
export interface BodyWorks {
  /** The body, whose nodes name it as their graph. */
  readonly graph: object;
  readonly works: readonly NodeWork[];
  /** Each node's dependencies, as indices of the body's nodes. */
  readonly deps: readonly (readonly number[])[];
}

/**
 * What a graph and its executables keep alive for their nodes (memory, modules, native
 * events): released when the last of them closes, or is collected unclosed.
 */
export class HeldResources {
  users = 1;
  readonly letGo: (() => void)[] = [];

  release(): void {
    if (--this.users > 0) return;
    for (const letGo of this.letGo.splice(0)) letGo();
  }
}

/** Holds the memory and module that `work` uses; pushes what lets them go. */
export function holdWork(work: NodeWork, letGo: (() => void)[]): void {
  for (const allocation of work.memory) {
    allocation.hold();
    letGo.push(() => allocation.letGo());
  }
  for (const module of modulesOf([work])) {
    module.engine.hold();
    letGo.push(() => module.engine.letGo());
  }
}

/** The modules of the kernels among `works`, in bodies too, each once. */
export function modulesOf(works: readonly NodeWork[], into = new Set<NodeModule>()): Set<NodeModule> {
  for (const work of works) {
    if (work.kind === 'kernel') into.add(work.kernel.module);
    else if (work.kind === 'conditional') for (const body of work.bodies) modulesOf(body.works, into);
  }
  return into;
}

/** A conditional node's work, from checked bodies. */
export function conditionalWork(type: ConditionalType, condition: GraphCondition, bodies: readonly BodyWorks[], loop: LoopBound | undefined): NodeWork {
  const memory: Allocation[] = [];
  for (const body of bodies) for (const work of body.works) addAllocations(memory, work.memory);
  return { kind: 'conditional', type, condition, bodies: Object.freeze(bodies.slice()), loop, memory };
}

/** A node that sets `condition` from the first element of checked `source` by `test`. */
export function setConditionWork(condition: GraphCondition, source: MemoryView, test: ParsedTest): NodeWork {
  return { kind: 'setCondition', condition, ptr: source.ptr, dtype: source.dtype, test, memory: [source.allocation] };
}

/** Whether `now` holds what `was` does: the same memory, and for a kernel the same module. */
export function sameHolds(was: NodeWork, now: NodeWork): boolean {
  const a = was.memory, b = now.memory;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  if (was.kind === 'conditional') return sameModules(modulesOf([was]), modulesOf([now]));
  return was.kind !== 'kernel' || (now.kind === 'kernel' && now.kernel.module === was.kernel.module);
}

function sameModules(a: Set<NodeModule>, b: Set<NodeModule>): boolean {
  if (a.size !== b.size) return false;
  for (const module of a) if (!b.has(module)) return false;
  return true;
}

/** The allocations among kernel arguments. */
function memoryOf(args: readonly unknown[]): Allocation[] {
  const memory: Allocation[] = [];
  for (const arg of args) if (isMemory(arg) && !memory.includes(arg.allocation)) memory.push(arg.allocation);
  return memory;
}

/** A kernel node's work, from checked arguments and their packed block. */
export function kernelWork(kernel: NodeKernel, config: LaunchConfig, args: readonly unknown[], block: Uint8Array): NodeWork {
  return { kind: 'kernel', kernel, config, args: Object.freeze(args), block, memory: memoryOf(args) };
}

/** A copy node's work, from checked memory. */
export function copyWork(dst: MemoryView, src: MemoryView): NodeWork {
  const memory = dst.allocation === src.allocation ? [dst.allocation] : [dst.allocation, src.allocation];
  return { kind: 'copy', dst: dst.ptr, src: src.ptr, bytes: dst.byteLength, memory };
}

/** A fill node's work, from checked memory and value. */
export function fillWork(dst: MemoryView, value: number | bigint): NodeWork {
  const [low, high] = scalarBits(dst.dtype, value as never);
  return { kind: 'fill', ptr: dst.ptr, size: DTYPES[dst.dtype].size, count: dst.length, low, high, memory: [dst.allocation] };
}

/** A host-function node's work, from a checked pointer and user data. */
export function hostFunctionWork(fn: bigint, userData: bigint | MemoryView): NodeWork {
  if (!isMemory(userData)) return { kind: 'hostFunction', fn, userData, memory: [] };
  return { kind: 'hostFunction', fn, userData: userData.ptr, memory: [userData.allocation] };
}

/** An event node's work, holding the event's native event until `held` releases it. */
export function eventWork(kind: 'record' | 'wait', event: RecordedEvent, held: HeldResources): NodeWork {
  const [native, letGo] = event.holdNative(kind === 'record');
  held.letGo.push(letGo);
  return { kind, event: native, memory: [] };
}

/** Whether some of `works` need the built-in condition kernels: setters, bounded loops (in bodies too). */
export function needsConditionKernels(works: readonly NodeWork[]): boolean {
  for (const work of works) {
    if (work.kind === 'setCondition') return true;
    if (work.kind === 'conditional' && (work.loop !== undefined || work.bodies.some((body) => needsConditionKernels(body.works)))) return true;
  }
  return false;
}

/** Whether some of `works` are library calls whose library is not ready yet. */
export function pendingLibraries(works: readonly NodeWork[]): boolean {
  for (const work of works) if (work.kind === 'library' && work.call.pending !== undefined) return true;
  return false;
}

/** The allocations the nodes use, each once. */
export function allocationsOf(works: readonly NodeWork[]): Allocation[] {
  const memory = new Set<Allocation>();
  for (const work of works) for (const allocation of work.memory) memory.add(allocation);
  return [...memory];
}

// Library calls (cuBLAS, cuFFT) as graph nodes. What such a node does belongs to its library
// (src/core/libraries), behind this interface, so that graphs know no library: on CUDA the call
// is captured natively into a child graph, on the host device it is enqueued again as recorded.

/** A library call recorded into a graph (or a value's recording, for `replay`). */
export interface LibraryCall {
  /** How messages name it, e.g. `gemm (f32, 64×64×64)`. */
  readonly name: string;
  /**
   * What an executable's update cannot change (sizes, types, layouts): an executable's node of
   * one call may be set to another of the same shape.
   */
  readonly shape: string;
  /**
   * Settles once the call's library is ready (a cuFFT plan being made), rejecting when it could
   * not be made; undefined when it is ready.
   */
  readonly pending: Promise<unknown> | undefined;
  /**
   * What differs between `was` and this call, of another shape, in words: `gemm (f32, 4×4×4) with
   * alpha 1 → 0 (…)`, or `gemm (f32, 8×4×4) where the graph has gemm (f32, 4×4×4)`.
   */
  shapeChange(was: LibraryCall): string;
  /** Whether `other`, of the same shape, differs in what an executable holds (addresses, scalars). */
  differs(other: LibraryCall): boolean;
  /** Enqueues the call on `lane` as an eager call does (the host device's replay, say). */
  enqueue(lane: StreamEngine<Recorder>): void;
  /**
   * CUDA: adds the call to `graph` after the nodes `deps`, returning its index.
   * @throws GraphError (`forbidden`, naming the call) when the library refuses to be captured.
   */
  addTo(graph: NativeGraph, deps: Uint32Array): number;
  /** CUDA: sets node `index` of `exec` to this call for its launches from now on. */
  setIn(exec: NativeGraphExec, index: number): void;
}

/**
 * What a recorder adds to device/recorder.ts's Recorder for library calls (the recorder file lists
 * it): every recorder a lane holds is a GraphRecorder (capture.ts), which implements it.
 */
export interface LibraryRecorder {
  /** A library call (cuBLAS, cuFFT), checked, with the memory it uses. */
  library(call: LibraryCall, memory: readonly Allocation[]): void;
}

/** Records a library call into a recording lane's `recorder` (see {@link LibraryRecorder}). */
export function recordLibraryCall(recorder: Recorder, call: LibraryCall, memory: readonly Allocation[]): void {
  (recorder as Recorder & LibraryRecorder).library(call, memory);
}
