// Conditional nodes run from the host, with CUDA's semantics in stream order: on the host device
// (where an executable replays its nodes), and on either backend for work a replay enqueues as
// given. A conditional node is a host step that reads its condition's value in this launch and runs
// the chosen body (again, for a while) on a stream of its own, one per nesting depth, waiting for
// each run; a setter is a host step that reads the element (on a GPU, through a copy to pinned
// memory) and sets the value. The values are set back to their initial values at each launch.
import { LoopLimitError } from '../base/loop-limit-error.js';
import { DTYPES } from '../base/dtype.js';
import { ConditionValue, type GraphCondition } from '../device/condition.js';
import type { Device } from '../device/device.js';
import type { Stream } from '../device/stream.js';
import type { DeviceAllocation } from '../memory/allocation.js';
import type { HostArray } from '../memory/memory.js';
import { hostStep } from '../queue/host-steps.js';
import { conditionValue } from './conditions.js';
import type { NodeWork } from './node-work.js';

/** One executable's conditions and body streams on the host device. */
export class HostConditions {
  readonly #device: Device;
  /** By the conditions' names, which pair an updated graph's conditions with the first one's. */
  readonly #values = new Map<string, ConditionValue>();
  readonly #streams: Stream[] = [];
  /** Where a GPU's element is copied to be read. */
  #word: HostArray<'u64'> | undefined;

  constructor(device: Device) {
    this.#device = device;
  }

  /** The value of `condition` in the launch running now. */
  valueOf(condition: GraphCondition): ConditionValue {
    let value = this.#values.get(condition.name);
    if (value === undefined) this.#values.set(condition.name, (value = new ConditionValue(condition)));
    return value;
  }

  /** Every value back to its initial one: the start of a launch. */
  reset(): void {
    for (const value of this.#values.values()) value.reset();
  }

  /** The arguments a kernel's CPU implementation receives: each condition as its value now. */
  args(args: readonly unknown[], signature: readonly unknown[]): readonly unknown[] {
    if (!signature.includes('condition')) return args;
    return args.map((arg, i) => (signature[i] === 'condition' ? this.valueOf(arg as GraphCondition) : arg));
  }

  /** The stream that runs bodies at nesting `depth` (from 0), made on first use. */
  stream(depth: number): Stream {
    return (this.#streams[depth] ??= this.#device.createStream());
  }

  /** Reads the first element of a setter's memory once the work before it has completed. */
  async read(work: Extract<NodeWork, { kind: 'setCondition' }>, depth: number): Promise<number | bigint> {
    const allocation = work.memory[0] as DeviceAllocation;
    const { Array, size } = DTYPES[work.dtype];
    if (this.#device.kind === 'host') return new Array(allocation.hostBuffer(), Number(work.ptr - allocation.ptr), 1)[0] as number | bigint;
    const word = (this.#word ??= this.#device.allocHost('u64', 1));
    const stream = this.stream(depth);
    stream.lane.run(() => stream.lane.native.copy(word.ptr, work.ptr, size));
    await stream.synchronized();
    return new Array(word.data.buffer, word.data.byteOffset, 1)[0] as number | bigint;
  }

  close(): void {
    for (const stream of this.#streams.splice(0)) stream.close();
    this.#word?.close();
    this.#word = undefined;
  }
}

/** What replaying one node takes: the stream, the node, the executable's conditions, the depth. */
export type Replay = (stream: Stream, work: NodeWork, conditions: HostConditions, depth: number) => void;

/** Enqueues a setter: a host step that reads the element when the stream reaches it. */
export function replaySetCondition(stream: Stream, work: Extract<NodeWork, { kind: 'setCondition' }>, conditions: HostConditions, depth: number): void {
  const lane = stream.lane;
  const value = conditions.valueOf(work.condition);
  const run = () => conditions.read(work, depth).then((element) => value.set(conditionValue(element, work.test)));
  lane.run(hostStep(lane, run, { kind: 'hostLaunch', name: `setCondition (${work.condition.name})` }));
}

/** Enqueues a conditional node: a host step that runs its bodies as the condition says. */
export function replayConditional(stream: Stream, work: Extract<NodeWork, { kind: 'conditional' }>, conditions: HostConditions, depth: number, replay: Replay): void {
  const lane = stream.lane;
  const name = work.loop?.name ?? `${work.type} node (${work.condition.name})`;
  lane.run(hostStep(lane, () => runConditional(work, conditions, depth, replay), { kind: 'hostLaunch', name }));
}

async function runConditional(work: Extract<NodeWork, { kind: 'conditional' }>, conditions: HostConditions, depth: number, replay: Replay): Promise<void> {
  const value = conditions.valueOf(work.condition);
  const run = async (b: number) => {
    const body = work.bodies[b];
    if (body === undefined) return;
    const stream = conditions.stream(depth);
    for (const child of body.works) replay(stream, child, conditions, depth + 1);
    await stream.synchronized();
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
