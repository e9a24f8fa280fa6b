// The replay operator's engine: one value's device work is recorded instead of enqueued, then
// launched as a graph. The first value's work is captured into the reference graph; a later
// value of the same shape launches an executable of it (one per lane stream) with that value's
// addresses and scalars; a value of another shape is enqueued as it was given, and said once.
// A value whose work is, operation by operation, the work an executable holds already (the same
// kernels, arguments and memory: the pool's buffers come round again) launches it as it is,
// keeping nothing of its own (replay-match.ts).
import { Graph, loadConditionKernelsOn, makeGraph } from '../../core/api/graph.js';
import { replayOn, shapeDifference, type NodeWork } from '../../core/api/graph-node.js';
import { endRecording, recordInto } from '../../core/graphs/capture.js';
import { needsConditionKernels, pendingLibraries } from '../../core/graphs/node-work.js';
import { conditionKernelsReady } from '../../core/graphs/condition-kernels.js';
import { GraphError } from '../../core/base/errors.js';
import type { Stream } from '../../core/api/stream.js';
import { ValueRecording, type Held, type RecordingOwner } from './replay-match.js';
import { BodyStreams, HostConditions } from '../../core/graphs/conditional-host.js';
import { setExecWorks } from '../../core/api/graph-exec.js';

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

/** Executables kept per lane stream and run of work: one per set of pooled buffers, mostly. */
const EXECS_PER_RUN = 8;
const NONE: readonly Held[] = [];

/** Whether two runs of work use the same memory, node by node (then only scalars may differ). */
function sameMemory(a: readonly NodeWork[], b: readonly NodeWork[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!.memory;
    const y = b[i]!.memory;
    if (x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

/** Replays values' device work as graphs, for one subscription of the operator. */
export class Replayer implements RecordingOwner {
  /** Per run of device work within a value (work a graph cannot hold splits it): its graph. */
  readonly #references: Graph[] = [];
  /** The reference graphs' nodes' work, per run (a graph's nodes never change once captured). */
  readonly #referenceWorks: (readonly NodeWork[])[] = [];
  /** Per lane stream and run: executables, each made for the pooled buffers of some values. */
  readonly #execs = new Map<Stream, Held[][]>();
  readonly #recordings = new Map<Stream, ValueRecording>();
  /** Per lane stream, where the conditional nodes of work enqueued as given run their bodies. */
  readonly #bodyStreams = new Map<Stream, BodyStreams<Stream>>();
  #clock = 0;
  readonly #onEager: (difference: string) => void;
  /** Values launched from a graph, and values enqueued as given. */
  replayed = 0;
  eager = 0;

  /** @param onEager told when a value's work is enqueued as given, with the difference. */
  constructor(onEager: (difference: string) => void) {
    this.#onEager = onEager;
  }

  /** Records the device work `body(arg)` gives `stream`, and launches it. */
  around<A>(stream: Stream, body: (arg: A) => void, arg: A): void {
    // A recording per lane stream, made once (a value nested in another's on the same lane, which
    // nothing does today, would get one of its own).
    let recording = this.#recordings.get(stream);
    if (!recording || recording.active) this.#recordings.set(stream, (recording = new ValueRecording(this, stream)));
    recording.active = true;
    recordInto(stream.engine, recording);
    try {
      body(arg);
    } finally {
      endRecording(stream.engine, recording);
      try {
        recording.flush();
      } finally {
        recording.reset();
      }
    }
  }

  /** @internal Launches the `position`-th run of a value's device work on `stream`. */
  submit(stream: Stream, position: number, works: readonly NodeWork[]): void {
    // A library call whose plan is still being made goes as given, quietly: the next value's is
    // captured. So does a conditional node while the device's built-in condition kernels compile.
    if (pendingLibraries(works)) return this.#eager(stream, works);
    if (needsConditionKernels(works) && !conditionKernelsReady(stream.device.engine)) {
      void loadConditionKernelsOn(stream.device).catch(() => {}); // a failed compile fails the graphs that need it
      return this.#eager(stream, works);
    }
    const reference = this.#references[position];
    try {
      if (!reference) return this.#capture(stream, position, works);
      const difference = workDifference(this.#referenceWorks[position]!, works);
      if (difference) {
        this.#eager(stream, works);
        return this.#onEager(difference);
      }
      const held = this.#heldFor(stream, position, reference, works);
      setExecWorks(held.exec, works);
      held.works = works;
      held.used = ++this.#clock;
      this.replayed++;
      held.exec.launch(stream);
    } catch (error) {
      // Work the driver would not capture (a library call it refused): this value goes as given.
      if (!(error instanceof GraphError && error.reason === 'forbidden')) throw error;
      this.#eager(stream, works);
      this.#onEager(error.message);
    }
  }

  #eager(stream: Stream, works: readonly NodeWork[]): void {
    this.eager++;
    let conditions: HostConditions<Stream> | undefined;
    if (works.some((work) => work.kind === 'conditional' || work.kind === 'setCondition')) {
      let streams = this.#bodyStreams.get(stream);
      if (!streams) this.#bodyStreams.set(stream, (streams = new BodyStreams(stream.device)));
      conditions = new HostConditions(streams);
    }
    for (const work of works) {
      for (const allocation of work.memory) allocation.use(stream.engine);
      replayOn(stream, work, conditions);
    }
  }

  /**
   * The executable to launch `works` with: one that holds the same memory (only its scalars may
   * need an update), else a new one while there are few, else the one used longest ago.
   */
  #heldFor(stream: Stream, position: number, reference: Graph, works: readonly NodeWork[]): Held {
    let runs = this.#execs.get(stream);
    if (!runs) this.#execs.set(stream, (runs = []));
    const held = (runs[position] ??= []);
    for (let i = 0; i < held.length; i++) if (sameMemory(held[i]!.works, works)) return held[i]!;
    if (held.length < EXECS_PER_RUN) {
      const made: Held = { exec: reference.instantiate(), works: this.#referenceWorks[position]!, used: 0 };
      held.push(made);
      return made;
    }
    return held.reduce((a, b) => (a.used <= b.used ? a : b));
  }

  /** @internal The executables kept for `stream`'s `position`-th run of work, the oldest first. */
  held(stream: Stream, position: number): readonly Held[] {
    return this.#execs.get(stream)?.[position] ?? NONE;
  }

  /** @internal Launches `held` on `stream` as it is: a value's work is the work it holds, node by node. */
  relaunch(stream: Stream, held: Held): void {
    held.used = ++this.#clock;
    this.replayed++;
    held.exec.launch(stream);
  }

  /** Releases the graphs and executables; launches already made still run. */
  close(): void {
    for (const runs of this.#execs.values()) for (const held of runs) for (const { exec } of held ?? []) exec.close();
    this.#execs.clear();
    this.#recordings.clear();
    for (const streams of this.#bodyStreams.values()) streams.close();
    this.#bodyStreams.clear();
    for (const graph of this.#references.splice(0)) graph.close();
    this.#referenceWorks.length = 0;
  }

  #capture(stream: Stream, position: number, works: readonly NodeWork[]): void {
    const graph = makeGraph(stream.device);
    let last;
    for (const work of works) last = graph.engine.add(work, last ? [last] : []);
    this.#references[position] = graph;
    this.#referenceWorks[position] = graph.nodes.map((n) => n.work);
    const held = this.#heldFor(stream, position, graph, works);
    held.used = ++this.#clock;
    this.replayed++;
    held.exec.launch(stream);
  }
}
