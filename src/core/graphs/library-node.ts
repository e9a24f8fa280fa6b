// Library calls (cuBLAS, cuFFT) as graph nodes. What such a node does belongs to its library
// (src/core/libraries), behind this interface, so that graphs know no library: on CUDA the call
// is captured natively into a child graph, on the host device it is enqueued again as recorded.
import type { NativeGraph, NativeGraphExec } from '../native/types.js';
import type { Allocation } from '../memory/allocation.js';
import type { Stream } from '../device/stream.js';

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
  /** Enqueues the call on `stream` as an eager call does (the host device's replay, say). */
  enqueue(stream: Stream): void;
  /**
   * CUDA: adds the call to `graph` after the nodes `deps`, returning its index.
   * @throws GraphError (`forbidden`, naming the call) when the library refuses to be captured.
   */
  addTo(graph: NativeGraph, deps: Uint32Array): number;
  /** CUDA: sets node `index` of `exec` to this call for its launches from now on. */
  setIn(exec: NativeGraphExec, index: number): void;
}

declare module '../device/recorder.js' {
  interface Recorder {
    /** A library call (cuBLAS, cuFFT), checked, with the memory it uses. */
    library(call: LibraryCall, memory: readonly Allocation[]): void;
  }
}
