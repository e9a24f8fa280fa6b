// One replayed value's device work as its lane records it. While each operation is one that an
// executable kept for the lane holds already (the same kernel, configuration, arguments and
// packed block; the same copy between the same memory), nothing is kept: the pool's buffers come
// round again, so a steady pipeline's values mostly find an executable holding exactly their
// work, and launch it as it is. The first operation no kept executable holds starts a recording
// of the value's own, beginning with what matched so far.
import type { Memory } from '../../core/api/memory.js';
import type { LaunchConfig } from '../../core/kernels/launch-config.js';
import { GraphRecorder } from '../../core/graphs/capture.js';
import type { GraphExec } from '../../core/api/graph-exec.js';
import type { NodeKernel, NodeWork } from '../../core/graphs/node-work.js';
import { HEADER_BYTES } from '../../core/kernels/packer.js';
import type { Stream } from '../../core/api/stream.js';

/** An executable of a reference graph, with the work it holds now, and when it was last used. */
export interface Held {
  readonly exec: GraphExec;
  works: readonly NodeWork[];
  used: number;
}

/** What a recording hands its runs of work to (the Replayer). */
export interface RecordingOwner {
  /** The executables kept for `stream`'s `position`-th run of work. */
  held(stream: Stream, position: number): readonly Held[];
  /** Launches `held` as it is. */
  relaunch(stream: Stream, held: Held): void;
  /** Launches (or enqueues as given) a run of recorded work. */
  submit(stream: Stream, position: number, works: readonly NodeWork[]): void;
}

/** Whether a kept node's work is this launch. */
function isLaunch(work: NodeWork, kernel: NodeKernel, config: LaunchConfig, args: readonly unknown[], block: Uint8Array): boolean {
  if (work.kind !== 'kernel' || work.kernel !== kernel || work.config !== config) return false;
  const given = work.args;
  if (given.length !== args.length) return false;
  // Object.is, not ===: a float 0 and -0 are equal, and pack other bits.
  for (let i = 0; i < args.length; i++) if (!Object.is(given[i], args[i])) return false;
  // The same arguments pack the same bytes, but for a struct: the same array may hold other bytes
  // now, and the block says. Its header is the configuration's (the same object) and the lane's
  // stream (the candidates are the lane's own).
  if (!kernel.engine.packsStructs) return true;
  const kept = work.block;
  if (kept.length !== block.length) return false;
  for (let i = HEADER_BYTES; i < block.length; i++) if (kept[i] !== block[i]) return false;
  return true;
}

/** Whether a kept node's work is this copy. */
function isCopy(work: NodeWork, dst: Memory, src: Memory): boolean {
  if (work.kind !== 'copy' || work.dst !== dst.ptr || work.src !== src.ptr || work.bytes !== dst.byteLength) return false;
  const memory = work.memory;
  return memory[0] === dst.allocation && memory[memory.length - 1] === src.allocation;
}

const NONE: readonly Held[] = [];

/** Where a run of a value's work is: matched against kept executables, or recorded as its own. */
const START = 0;
const MATCHING = 1;
const RECORDING = 2;

/**
 * One value's device work on its lane, recorded: launched when work a graph cannot hold comes
 * (a host step, a notification, an event), and when the value's operators have returned. An
 * allocation does not end the run: a pool's first values allocate where later ones reuse, and
 * their runs must be of one shape for the later values to replay the first one's graph.
 */
export class ValueRecording extends GraphRecorder {
  readonly #owner: RecordingOwner;
  readonly #stream: Stream;
  /** Whether a value's work is being recorded into it now. */
  active = false;
  #works: NodeWork[] = [];
  #position = 0;
  #state = START;
  /** The executables kept for this run, and those (a bit each) that hold every operation so far. */
  #candidates: readonly Held[] = NONE;
  #matching = 0;
  /** Operations matched so far in this run. */
  #count = 0;

  constructor(owner: RecordingOwner, stream: Stream) {
    super();
    this.#owner = owner;
    this.#stream = stream;
  }

  override kernel(kernel: NodeKernel, config: LaunchConfig, args: readonly unknown[], block: Uint8Array): void {
    if (this.#state !== RECORDING) {
      this.#begin();
      let still = 0;
      // Each candidate still matching: one bit of the mask each, the lowest first.
      for (let left = this.#matching; left !== 0; left &= left - 1) {
        const k = 31 - Math.clz32(left & -left);
        const work = this.#candidates[k]!.works[this.#count];
        if (work !== undefined && isLaunch(work, kernel, config, args, block)) still |= 1 << k;
      }
      if (this.#matched(still)) return;
    }
    super.kernel(kernel, config, args, block);
  }

  override copy(dst: Memory, src: Memory): void {
    if (this.#state !== RECORDING) {
      this.#begin();
      let still = 0;
      for (let left = this.#matching; left !== 0; left &= left - 1) {
        const k = 31 - Math.clz32(left & -left);
        const work = this.#candidates[k]!.works[this.#count];
        if (work !== undefined && isCopy(work, dst, src)) still |= 1 << k;
      }
      if (this.#matched(still)) return;
    }
    super.copy(dst, src);
  }

  protected add(work: NodeWork): void {
    if (this.#state !== RECORDING) this.#record();
    this.#works.push(work);
  }

  record(): boolean {
    this.flush();
    return false;
  }

  wait(): boolean {
    this.flush();
    return false;
  }

  step(): boolean {
    this.flush();
    return false;
  }

  interrupt(): void {
    this.flush();
  }

  /**
   * Stream-ordered memory is usable by what the stream is given after it, and the run recorded
   * so far is launched after the allocation, so nothing recorded can touch the memory too early.
   */
  allocation(): void {}

  beforeRun(): void {
    this.flush();
  }

  /** Launches what was recorded (or matched) so far, with the stream itself as the driver's. */
  flush(): void {
    const state = this.#state;
    if (state === START) return;
    const lane = this.#stream.engine;
    const recording = lane.recorder === this;
    if (recording) lane.recorder = undefined; // the launch goes straight to the lane
    try {
      const held = state === MATCHING ? this.#whole() : undefined;
      if (held) this.#owner.relaunch(this.#stream, held);
      else {
        if (state === MATCHING) this.#record();
        const works = this.#works;
        this.#works = [];
        this.#owner.submit(this.#stream, this.#position, works);
      }
    } finally {
      this.#position++;
      this.#state = START;
      this.#count = 0;
      if (recording) lane.recorder = this;
    }
  }

  /** Readies the recording for the next value (its first run). */
  reset(): void {
    this.active = false;
    this.#position = 0;
    this.#state = START;
    this.#count = 0;
    if (this.#works.length > 0) this.#works = [];
    this.#candidates = NONE;
  }

  /** At a run's start: every executable kept for the run is a candidate. */
  #begin(): void {
    if (this.#state !== START) return;
    this.#candidates = this.#owner.held(this.#stream, this.#position);
    this.#matching = (1 << this.#candidates.length) - 1;
    this.#state = MATCHING;
  }

  /** Keeps the candidates in `still`; when none is left, records the run from here on. */
  #matched(still: number): boolean {
    if (still !== 0) {
      this.#matching = still;
      this.#count++;
      return true;
    }
    this.#record();
    return false;
  }

  /** Records the run as its own from here on, beginning with the operations matched so far. */
  #record(): void {
    if (this.#count > 0) {
      const k = 31 - Math.clz32(this.#matching & -this.#matching); // any of them holds those
      this.#works = this.#candidates[k]!.works.slice(0, this.#count);
    }
    this.#state = RECORDING;
    this.#count = 0;
  }

  /** A candidate that holds exactly the operations matched (no more), if one does. */
  #whole(): Held | undefined {
    for (let k = 0; k < this.#candidates.length; k++)
      if (this.#matching & (1 << k) && this.#candidates[k]!.works.length === this.#count) return this.#candidates[k];
    return undefined;
  }
}
