// The replay operator's engine: one value's device work is recorded instead of enqueued, then
// launched as a graph. The first value's work is captured into the reference graph; a later
// value of the same shape launches an executable of it (one per lane stream) with that value's
// addresses and scalars; a value of another shape is enqueued as it was given, and said once.
import { Graph } from './graph.js';
import { copyWork, fillWork, hostFunctionWork, kernelWork } from './graph.js';
import { replayOn, shapeDifference, type NodeWork } from './graph-node.js';
import type { GraphExec } from './graph-exec.js';
import type { Recorder } from './capture.js';
import type { Kernel } from './kernel.js';
import type { LaunchConfig } from './launch-config.js';
import type { Memory } from './memory.js';
import type { Stream } from './stream.js';

/** The first difference between two values' device work, in words; undefined when none. */
export function workDifference(reference: readonly NodeWork[], works: readonly NodeWork[]): string | undefined {
  if (reference.length !== works.length)
    return `${works.length} device operations where the first value had ${reference.length}`;
  for (let i = 0; i < works.length; i++) {
    const difference = shapeDifference(reference[i]!, works[i]!);
    if (difference) return `operation ${i} is ${difference}`;
  }
  return undefined;
}

/** @internal Replays values' device work as graphs, for one subscription of the operator. */
export class Replayer {
  /** Per run of device work within a value (work a graph cannot hold splits it): its graph. */
  readonly #references: Graph[] = [];
  readonly #execs = new Map<Stream, GraphExec[]>();
  readonly #onEager: (difference: string) => void;
  /** Values launched from a graph, and values enqueued as given. */
  replayed = 0;
  eager = 0;

  /** @param onEager told when a value's work is enqueued as given, with the difference. */
  constructor(onEager: (difference: string) => void) {
    this.#onEager = onEager;
  }

  /** Records the device work `body` gives `stream`, and launches it. */
  around(stream: Stream, body: () => void): void {
    const recording = new ValueRecording(this, stream);
    const stop = stream.recordInto(recording);
    try {
      body();
    } finally {
      stop();
      recording.flush();
    }
  }

  /** @internal Launches the `position`-th run of a value's device work on `stream`. */
  submit(stream: Stream, position: number, works: readonly NodeWork[]): void {
    const reference = this.#references[position];
    if (!reference) return this.#capture(stream, position, works);
    const difference = workDifference(reference.nodes.map((n) => n.work), works);
    if (difference) {
      this.eager++;
      for (const work of works) {
        for (const allocation of work.memory) allocation.use(stream);
        replayOn(stream, work);
      }
      return this.#onEager(difference);
    }
    const execs = this.#execs.get(stream) ?? [];
    this.#execs.set(stream, execs);
    const exec = (execs[position] ??= reference.instantiate());
    exec.setWorks(works);
    this.replayed++;
    exec.launch(stream);
  }

  /** Releases the graphs and executables; launches already made still run. */
  close(): void {
    for (const execs of this.#execs.values()) for (const exec of execs) exec?.close();
    this.#execs.clear();
    for (const graph of this.#references.splice(0)) graph.close();
  }

  #capture(stream: Stream, position: number, works: readonly NodeWork[]): void {
    const graph = Graph.create(stream.device);
    let last;
    for (const work of works) last = graph.add(work, last ? [last] : []);
    this.#references[position] = graph;
    const exec = graph.instantiate();
    const execs = this.#execs.get(stream) ?? [];
    execs[position] = exec;
    this.#execs.set(stream, execs);
    this.replayed++;
    exec.launch(stream);
  }
}

/**
 * One value's device work on its lane, recorded: launched when work a graph cannot hold comes
 * (a host step, a notification, an event), and when the value's operators have returned.
 */
class ValueRecording implements Recorder {
  readonly #replayer: Replayer;
  readonly #stream: Stream;
  #works: NodeWork[] = [];
  #position = 0;

  constructor(replayer: Replayer, stream: Stream) {
    this.#replayer = replayer;
    this.#stream = stream;
  }

  kernel(kernel: Kernel, config: LaunchConfig, args: readonly unknown[], block: Uint8Array): void {
    this.#works.push(kernelWork(kernel, config, args, block));
  }

  copy(dst: Memory, src: Memory): void {
    this.#works.push(copyWork(dst, src));
  }

  fill(dst: Memory, value: number | bigint): void {
    this.#works.push(fillWork(dst, value));
  }

  hostFunction(fn: bigint, userData: bigint | Memory): void {
    this.#works.push(hostFunctionWork(fn, userData));
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

  beforeRun(): void {
    this.flush();
  }

  /** Launches what was recorded so far. */
  flush(): void {
    if (this.#works.length === 0) return;
    const works = this.#works;
    this.#works = [];
    this.#replayer.submit(this.#stream, this.#position++, works);
  }
}
