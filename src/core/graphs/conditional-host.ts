// Conditional nodes run as host steps, with CUDA's semantics in stream order: on the host device
// (where an executable replays its nodes), and on either backend for work a replay enqueues as
// given. A conditional node is a host step that reads its condition's value in this launch and runs
// the chosen body (again, for a while) on a stream taken from the executable's pool of body
// streams, waiting for each run; a setter is a host step that reads the element (on a GPU, through
// a copy to pinned memory) and sets the value. Each launch has values of its own, from the initial
// ones.
import { LoopLimitError } from '../base/loop-limit-error.js';
import { DTYPES } from '../base/dtype.js';
import { ConditionValue, type GraphCondition, conditionValueOf } from '../device/condition.js';
import type { Recorder } from '../device/recorder.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import type { DeviceAllocation } from '../memory/allocation.js';
import type { HostMemoryView } from '../memory/memory-view.js';
import { hostStep } from '../queue/host-steps.js';
import { conditionValue } from './conditions.js';
import type { NodeWork } from './node-work.js';

/** What a body's run needs of a stream (a public Stream is one). */
export interface BodyStream {
  readonly engine: StreamEngine<Recorder>;
  synchronized(): Promise<void>;
  close(): void;
}

/** What body streams need of their device (a public Device is one). */
export interface BodyDevice<S extends BodyStream> {
  readonly kind: 'cuda' | 'host';
  createStream(): S;
  allocHost(dtype: 'u64', length: number): HostMemoryView<'u64'>;
}

/** A body stream, and the pinned word it reads a GPU's element through, made on first use. */
interface BodyEntry<S extends BodyStream> {
  readonly stream: S;
  word: HostMemoryView<'u64'> | undefined;
}

/**
 * The streams an executable's conditional nodes run their bodies on, each with a pinned word for
 * reading a GPU's element: taken by a run of a body and given back after it, so that concurrent
 * launches, and nested bodies, each run on a stream of their own.
 */
export class BodyStreams<S extends BodyStream = BodyStream> {
  readonly device: BodyDevice<S>;
  readonly #free: BodyEntry<S>[] = [];
  #closed = false;

  constructor(device: BodyDevice<S>) {
    this.device = device;
  }

  take(): BodyEntry<S> {
    return this.#free.pop() ?? { stream: this.device.createStream(), word: undefined };
  }

  give(entry: BodyEntry<S>): void {
    if (this.#closed) return release(entry);
    this.#free.push(entry);
  }

  /** Closes the free streams now, and those in use when they are given back. */
  close(): void {
    this.#closed = true;
    for (const entry of this.#free.splice(0)) release(entry);
  }
}

function release(entry: BodyEntry<BodyStream>): void {
  entry.stream.close();
  entry.word?.close();
}

/** One launch's conditions (its conditional nodes run as host steps): their values, and its bodies' streams. */
export class HostConditions<S extends BodyStream = BodyStream> {
  readonly streams: BodyStreams<S>;
  /** By the conditions' names, which pair an updated graph's conditions with the first one's. */
  readonly #values = new Map<string, ConditionValue>();

  constructor(streams: BodyStreams<S>) {
    this.streams = streams;
  }

  /** The value of `condition` in this launch: its initial value until something sets it. */
  valueOf(condition: GraphCondition): ConditionValue {
    let value = this.#values.get(condition.name);
    if (value === undefined) this.#values.set(condition.name, (value = conditionValueOf(condition)));
    return value;
  }

  /** The arguments a kernel's CPU implementation receives: each condition as its value now. */
  args(args: readonly unknown[], signature: readonly unknown[]): readonly unknown[] {
    if (!signature.includes('condition')) return args;
    return args.map((arg, i) => (signature[i] === 'condition' ? this.valueOf(arg as GraphCondition) : arg));
  }

  /**
   * Reads the first element of a setter's memory once the work before it has completed: in place
   * for the host device's device memory, else through a copy to pinned memory on a body stream.
   */
  async read(work: Extract<NodeWork, { kind: 'setCondition' }>): Promise<number | bigint> {
    const allocation = work.memory[0] as DeviceAllocation;
    const { Array, size } = DTYPES[work.dtype];
    if (this.streams.device.kind === 'host' && typeof allocation.hostBuffer === 'function')
      return new Array(allocation.hostBuffer(), Number(work.ptr - allocation.ptr), 1)[0] as number | bigint;
    const entry = this.streams.take();
    try {
      const word = (entry.word ??= this.streams.device.allocHost('u64', 1));
      const lane = entry.stream.engine;
      lane.run(() => lane.native.copy(word.ptr, work.ptr, size));
      await entry.stream.synchronized();
      return new Array(word.data.buffer, word.data.byteOffset, 1)[0] as number | bigint;
    } finally {
      this.streams.give(entry);
    }
  }
}

/** What replaying one node takes: the stream, the node, and the launch's conditions. */
export type Replay<S extends BodyStream> = (stream: S, work: NodeWork, conditions: HostConditions<S>) => void;

/** Enqueues a setter: a host step that reads the element when the stream reaches it. */
export function replaySetCondition(stream: BodyStream, work: Extract<NodeWork, { kind: 'setCondition' }>, conditions: HostConditions<BodyStream>): void {
  const lane = stream.engine;
  const value = conditions.valueOf(work.condition);
  const run = () => conditions.read(work).then((element) => value.set(conditionValue(element, work.test)));
  lane.run(hostStep(lane, run, { kind: 'hostLaunch', name: `setCondition (${work.condition.name})` }));
}

/** Enqueues a conditional node: a host step that runs its bodies as the condition says. */
export function replayConditional<S extends BodyStream>(stream: S, work: Extract<NodeWork, { kind: 'conditional' }>, conditions: HostConditions<S>, replay: Replay<S>): void {
  const lane = stream.engine;
  const name = work.loop?.name ?? `${work.type} node (${work.condition.name})`;
  lane.run(hostStep(lane, () => runConditional(work, conditions, replay), { kind: 'hostLaunch', name }));
}

async function runConditional<S extends BodyStream>(work: Extract<NodeWork, { kind: 'conditional' }>, conditions: HostConditions<S>, replay: Replay<S>): Promise<void> {
  const value = conditions.valueOf(work.condition);
  const run = async (b: number) => {
    const body = work.bodies[b];
    if (body === undefined) return;
    const entry = conditions.streams.take();
    try {
      for (const child of body.works) replay(entry.stream, child, conditions);
      await entry.stream.synchronized();
    } finally {
      conditions.streams.give(entry);
    }
  };
  if (work.type === 'if') return run(value.value !== 0 ? 0 : 1);
  if (work.type === 'switch') return run(value.value);
  const bound = work.loop;
  for (let iterations = 0; value.value !== 0; iterations++) {
    if (bound !== undefined && iterations === bound.maxIterations) {
      value.set(0); // stopped as the device stops it: the graph goes on
      throw new LoopLimitError(bound.name, iterations);
    }
    await run(0);
  }
}
