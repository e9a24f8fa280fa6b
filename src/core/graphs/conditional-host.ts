// Conditional nodes on the host device, with CUDA's semantics in stream order: a conditional node
// is a host step that reads its condition's value in this launch and runs the chosen body (again,
// for a while) on a stream of the executable's own, one per nesting depth, waiting for each run; a
// setter is a host step that reads the element and sets the value. The values are the executable's,
// set back to their initial values at the start of each launch.
import { LoopLimitError } from '../base/errors.js';
import { DTYPES } from '../base/dtype.js';
import { ConditionValue, type GraphCondition } from '../device/condition.js';
import type { Device } from '../device/device.js';
import type { Stream } from '../device/stream.js';
import type { DeviceAllocation } from '../memory/allocation.js';
import { hostStep } from '../queue/host-steps.js';
import { conditionValue } from './conditions.js';
import type { NodeWork } from './node-work.js';

/** One executable's conditions and body streams on the host device. */
export class HostConditions {
  readonly #device: Device;
  readonly #values = new Map<GraphCondition, ConditionValue>();
  readonly #streams: Stream[] = [];

  constructor(device: Device) {
    this.#device = device;
  }

  /** The value of `condition` in the launch running now. */
  valueOf(condition: GraphCondition): ConditionValue {
    let value = this.#values.get(condition);
    if (value === undefined) this.#values.set(condition, (value = new ConditionValue(condition)));
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

  close(): void {
    for (const stream of this.#streams.splice(0)) stream.close();
  }
}

/** What replaying one node takes: the stream, the node, the executable's conditions, the depth. */
export type Replay = (stream: Stream, work: NodeWork, conditions: HostConditions, depth: number) => void;

/** Enqueues a setter: a host step that reads the element when the stream reaches it. */
export function replaySetCondition(stream: Stream, work: Extract<NodeWork, { kind: 'setCondition' }>, conditions: HostConditions): void {
  const lane = stream.lane;
  const value = conditions.valueOf(work.condition);
  lane.run(hostStep(lane, () => value.set(conditionValue(readFirst(work), work.test)), { kind: 'hostLaunch', name: `setCondition (${work.condition.name})` }));
}

function readFirst(work: Extract<NodeWork, { kind: 'setCondition' }>): number | bigint {
  const allocation = work.memory[0] as DeviceAllocation;
  const Array = DTYPES[work.dtype].Array;
  return new Array(allocation.hostBuffer(), Number(work.ptr - allocation.ptr), 1)[0] as number | bigint;
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
