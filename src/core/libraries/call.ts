// How a library's calls reach a stream: straight to the library on a stream with nothing queued
// (the fast path: one native call over a block written in place), else in the stream's queue
// behind what waits there, and behind the library's own readiness (a cuBLAS handle or a cuFFT
// plan being made off the main thread); recorded instead while the stream captures.
import { GraphError } from '../base/errors.js';
import type { Allocation } from '../memory/allocation.js';
import type { DeviceEngine } from '../device/device-engine.js';
import type { Recorder } from '../device/recorder.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import type { LibraryCall } from '../graphs/node-work.js';
import type { NativeGraph, NativeGraphExec } from '../native/types.js';
import { LibraryError, statusError, statusName, type LibraryName } from './errors.js';
import { libraries, writeAddress, type NativeBlas, type NativeFft } from './native.js';
import { workspacesOf } from './workspaces.js';

/**
 * @internal What a call waits for: its library being made ready (`pending`), or what made it
 * fail (`failure`); and the workspace its eager calls take on CUDA.
 */
export interface Readiness {
  pending: Promise<unknown> | undefined;
  failure: LibraryError | undefined;
  workBytes: number;
}

/** @internal Readiness already there: the host device's libraries, which wait for nothing. */
export function readyNow(): Readiness {
  return { pending: undefined, failure: undefined, workBytes: 0 };
}

/** @internal Where the stream and the workspace go in a library's blocks, and how it runs one. */
export interface Library {
  readonly name: LibraryName;
  readonly device: DeviceEngine;
  /** 0 for cuBLAS, 1 for cuFFT (addLibraryNode's kind). */
  readonly kind: number;
  readonly native: NativeBlas | NativeFft;
  /** The library call that failed, in errors: `cublasGemmEx`, `cufftExec`. */
  readonly call: string;
  readonly streamAt: number;
  readonly workAt: number;
  readonly workBytesAt: number;
  /** Runs a block; the library's status. */
  run(block: Float64Array): number;
  /** What makes the call of block `now` another shape than that of `was`, of the same name, in words. */
  change(was: Float64Array, now: Float64Array): string;
  /** The block the library's own calls are written into, and its run bound natively (once loaded). */
  readonly own: Float64Array;
  runOwn: () => number;
}

/**
 * @internal Enqueues the call `block` describes (all but its stream and workspace) on `lane`:
 * at once when the stream is direct and the library ready, else in the stream's queue (`block` is
 * copied then), behind the library's readiness. A status the library answers at once is thrown as a
 * LibraryError (`describe` names the call); a queued call's goes where the stream's queued
 * failures go. A `replayed` call (a graph's node, run again on the host device, or a replayed
 * value's call enqueued as given) goes at once also while the lane records: that recording is
 * what is being launched.
 */
export function submit(library: Library, lane: StreamEngine<Recorder>, block: Float64Array, readiness: Readiness, describe: (block: Float64Array) => string, replayed = false): void {
  if (readiness.failure) throw readiness.failure;
  writeAddress(block, library.streamAt, lane.lo, lane.hi);
  if (readiness.pending === undefined && (replayed ? lane.unqueued : lane.immediate)) {
    withWorkspace(library, lane, block, readiness);
    lane.noteSubmitted();
    let status = 0;
    try {
      status = block === library.own ? library.runOwn() : library.run(block);
    } catch (error) {
      lane.faults.fail(error);
    }
    if (status !== 0) throw statusError(library.name, status, library.call, describe(block));
    return;
  }
  const copy = block.slice();
  const pending = readiness.pending;
  // The wait and the call are two commands: the call's failure then goes where queued failures go.
  if (pending) lane.run(() => (resume) => void pending.then(resume, resume));
  lane.run(() => {
    if (readiness.failure) throw readiness.failure;
    withWorkspace(library, lane, copy, readiness);
    const status = library.run(copy);
    if (status !== 0) throw statusError(library.name, status, library.call, describe(copy));
  });
}

/** Writes the lane's workspace (grown to the size its readiness gives) into the block; none on the host device. */
function withWorkspace(library: Library, lane: StreamEngine, block: Float64Array, readiness: Readiness): void {
  if (readiness.workBytes === 0) {
    block[library.workBytesAt] = 0;
    return;
  }
  const workspace = workspacesOf(library.device).on(lane, readiness.workBytes);
  writeAddress(block, library.workAt, workspace.lo, workspace.hi);
  block[library.workBytesAt] = workspace.byteLength;
}

/**
 * @internal A library call recorded by a capture or a value's replay: its block, its library's
 * readiness, and the workspace a graph gives it (`graphWorkspace` bytes, or the readiness's once
 * the library is ready).
 */
export class RecordedCall implements LibraryCall {
  readonly #library: Library;
  readonly #block: Float64Array;
  readonly #readiness: Readiness;
  readonly #graphWorkspace: number | undefined;
  readonly #describe: (block: Float64Array) => string;
  #ready: Promise<void> | undefined;

  /**
   * @param describe names the call in its library's failures, from its block.
   */
  constructor(
    library: Library,
    readonly name: string,
    readonly shape: string,
    block: Float64Array,
    readiness: Readiness,
    describe: (block: Float64Array) => string,
    graphWorkspace?: number,
  ) {
    this.#describe = describe;
    this.#library = library;
    this.#block = block.slice();
    this.#readiness = readiness;
    this.#graphWorkspace = graphWorkspace;
  }

  /** Settles once the library is ready: rejects with what made it fail (a capture then fails). */
  get pending(): Promise<unknown> | undefined {
    const pending = this.#readiness.pending;
    if (!pending) return undefined;
    if (!this.#ready) {
      this.#ready = pending.then(() => {
        if (this.#readiness.failure) throw this.#readiness.failure;
      });
      this.#ready.catch(() => {}); // whoever waits for it hears of the failure; nobody else must
    }
    return this.#ready;
  }

  shapeChange(was: LibraryCall): string {
    if (!(was instanceof RecordedCall) || was.name !== this.name || was.#library !== this.#library) return `${this.name} where the graph has ${was.name}`;
    return `${this.name} with ${this.#library.change(was.#block, this.#block)}`;
  }

  differs(other: LibraryCall): boolean {
    if (!(other instanceof RecordedCall)) return true;
    const [a, b] = [this.#block, other.#block];
    const { streamAt, workAt, workBytesAt } = this.#library;
    for (let i = 0; i < a.length; i++) {
      if (i === streamAt || i === streamAt + 1 || i === workAt || i === workAt + 1 || i === workBytesAt) continue;
      if (a[i] !== b[i]) return true;
    }
    return false;
  }

  enqueue(lane: StreamEngine<Recorder>): void {
    submit(this.#library, lane, this.#block, this.#readiness, this.#describe, true);
  }

  addTo(graph: NativeGraph, deps: Uint32Array): number {
    if (this.#readiness.failure) throw this.#readiness.failure;
    const bytes = this.#graphWorkspace ?? this.#readiness.workBytes;
    const index = libraries.addLibraryNode(graph, this.#library.kind, this.#library.native, this.#block, bytes, deps);
    if (index >= 0) return index;
    const status = statusName(this.#library.name, -1 - index);
    throw new GraphError('forbidden', `${this.name} cannot be captured into a graph: ${this.#library.name} answered ${status} under stream capture (call it outside the capture instead)`);
  }

  setIn(exec: NativeGraphExec, index: number): void {
    const status = libraries.setLibraryNode(exec, index, this.#library.kind, this.#library.native, this.#block);
    if (status !== 0) throw statusError(this.#library.name, status, this.#library.call, `${this.name}, captured again to update an executable`);
  }
}

/** @internal The allocations of two or three arrays, each once, and `extra` (a plan's) after them. */
export function allocationsOf(a: { readonly allocation: Allocation }, b: { readonly allocation: Allocation }, c?: { readonly allocation: Allocation }, extra?: Allocation): Allocation[] {
  const out = [a.allocation];
  if (b.allocation !== a.allocation) out.push(b.allocation);
  if (c && c.allocation !== a.allocation && c.allocation !== b.allocation) out.push(c.allocation);
  if (extra) out.push(extra);
  return out;
}
