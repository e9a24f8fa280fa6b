// The work of graph nodes, from checked arguments: what each node does, and what it holds (memory,
// modules, native events) until the graph and its executables let go.
import { DTYPES } from '../base/dtype.js';
import { scalarBits } from '../base/scalar.js';
import type { Allocation } from '../memory/allocation.js';
import { Memory } from '../memory/memory.js';
import type { RecordedEvent } from '../device/recorder.js';
import type { Kernel } from '../kernels/kernel.js';
import type { LaunchConfig } from '../kernels/launch-config.js';
import type { NativeEvent } from '../native/types.js';
import type { LibraryCall } from './library-node.js';

/** What a node does, with the addresses and packed arguments it uses. */
export type NodeWork =
  | {
      readonly kind: 'kernel';
      readonly kernel: Kernel;
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
  | { readonly kind: 'library'; readonly call: LibraryCall; readonly memory: readonly Allocation[] };

/**
 * What a graph and its executables keep alive for their nodes (memory, modules, native
 * events): let go when the last of them closes, or is collected unclosed.
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
  if (work.kind === 'kernel') {
    const module = work.kernel.module;
    module.hold();
    letGo.push(() => module.letGo());
  }
}

/** Whether `now` holds what `was` does: the same memory, and for a kernel the same module. */
export function sameHolds(was: NodeWork, now: NodeWork): boolean {
  const a = was.memory, b = now.memory;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return was.kind !== 'kernel' || (now.kind === 'kernel' && now.kernel.module === was.kernel.module);
}

/** The allocations among kernel arguments. */
function memoryOf(args: readonly unknown[]): Allocation[] {
  const memory: Allocation[] = [];
  for (const arg of args) if (arg instanceof Memory && !memory.includes(arg.allocation)) memory.push(arg.allocation);
  return memory;
}

/** A kernel node's work, from checked arguments and their packed block. */
export function kernelWork(kernel: Kernel, config: LaunchConfig, args: readonly unknown[], block: Uint8Array): NodeWork {
  return { kind: 'kernel', kernel, config, args: Object.freeze(args), block, memory: memoryOf(args) };
}

/** A copy node's work, from checked memory. */
export function copyWork(dst: Memory, src: Memory): NodeWork {
  const memory = dst.allocation === src.allocation ? [dst.allocation] : [dst.allocation, src.allocation];
  return { kind: 'copy', dst: dst.ptr, src: src.ptr, bytes: dst.byteLength, memory };
}

/** A fill node's work, from checked memory and value. */
export function fillWork(dst: Memory, value: number | bigint): NodeWork {
  const [low, high] = scalarBits(dst.dtype, value as never);
  return { kind: 'fill', ptr: dst.ptr, size: DTYPES[dst.dtype].size, count: dst.length, low, high, memory: [dst.allocation] };
}

/** A host-function node's work, from a checked pointer and user data. */
export function hostFunctionWork(fn: bigint, userData: bigint | Memory): NodeWork {
  const memory = userData instanceof Memory ? [userData.allocation] : [];
  return { kind: 'hostFunction', fn, userData: userData instanceof Memory ? userData.ptr : userData, memory };
}

/** An event node's work, holding the event's native event until `held` lets go. */
export function eventWork(kind: 'record' | 'wait', event: RecordedEvent, held: HeldResources): NodeWork {
  const [native, letGo] = event.holdNative(kind === 'record');
  held.letGo.push(letGo);
  return { kind, event: native, memory: [] };
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
