// A kernel's launch block: the header (configuration and stream handle) and the packed arguments
// that the native launch reads, allocated once per kernel, with the packer its signature built.
// A launch writes into it and makes one native call; a launch that must wait in its lane's queue
// takes a copy of the block, written back when its turn comes.
import { brandOf, elementsOf } from '../base/errors.js';
import { bfloat16Bits, halfBits } from '../base/dtype.js';
import { GraphCondition, conditionHi, conditionLo } from '../device/condition.js';
import { memoryClasses, usableOn } from '../memory/memory-view.js';
import type { KernelLauncher, NativeKernel } from '../native/types.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import type { DeviceEngine } from '../device/device-engine.js';
import type { Recorder } from '../device/recorder.js';
import type { Signature } from './kernel-types.js';
import { LaunchConfig, type LaunchOptions, configMatches, configHeader } from './launch-config.js';
import { HEADER_BYTES, STREAM_WORD, badArgument, buildPacker, bytesOfStruct, paramLayout, wrongArgCount } from './packer.js';

/** A launch's context as the block passes it on (a LaunchContext): its private copy of the arguments. */
interface Launch {
  readonly given: readonly unknown[];
}

/** How the block reaches what it does not own: the kernel's module and its recording. */
export interface BlockOwner {
  /** Notes that `lane` launched the kernel (its module's unload waits for it). */
  usedOn(lane: StreamEngine): void;
  /** Checks `config` for the kernel's device and for what the kernel itself allows (KernelEngine.checkConfig). */
  checkConfig(config: LaunchConfig): void;
  /**
   * Records a launch into a recording lane's recorder (the kernel names itself there): `args` and
   * `block` are the launch's own, which the recorder copies if it keeps them.
   */
  record(recorder: Recorder, config: LaunchConfig, args: readonly unknown[], block: Uint8Array): void;
}

/** The byte offset of each parameter after the header, each at its alignment. */
export function offsetsOf(signature: Signature): { offsets: number[]; end: number } {
  const offsets: number[] = [];
  let end = 0;
  for (const { size, align } of signature.map(paramLayout)) {
    end = Math.ceil(end / align) * align;
    offsets.push(end);
    end += size;
  }
  return { offsets, end };
}

/** One kernel's launch block and the launches that go through it. */
export class LaunchBlock {
  readonly #bytes: Uint8Array;
  readonly #header: Uint32Array;
  readonly #pack: (args: readonly unknown[], lane: StreamEngine | undefined) => void;
  readonly #launch: KernelLauncher;
  readonly #owner: BlockOwner;
  /**
   * The configuration whose header the block holds, and the id of the lane whose handle it holds
   * (not the lane: a kernel kept for the process would keep the last stream that launched it).
   */
  #config: LaunchConfig | undefined;
  #laneId = 0;

  constructor(native: NativeKernel, signature: Signature, device: DeviceEngine, owner: BlockOwner) {
    this.#owner = owner;
    const { offsets, end } = offsetsOf(signature);
    const block = new ArrayBuffer(HEADER_BYTES + Math.ceil(end / 16) * 16);
    this.#bytes = new Uint8Array(block);
    this.#header = new Uint32Array(block);
    const views = {
      i8: new Int8Array(block), u8: new Uint8Array(block), i16: new Int16Array(block),
      u16: new Uint16Array(block), i32: new Int32Array(block), u32: this.#header,
      f32: new Float32Array(block), f64: new Float64Array(block), i64: new BigInt64Array(block),
      u64: new BigUint64Array(block), half: halfBits, bhalf: bfloat16Bits, isMemory: memoryClasses.isMemory, isCondition: brandOf(GraphCondition), usableOn, conditionLo, conditionHi, device,
      bad: (i: number, v: unknown) => badArgument(signature, device, i, v),
      wrongCount: (a: unknown) => wrongArgCount(signature, a),
      structBytes: (i: number, v: unknown, size: number) => {
        const bytes = bytesOfStruct(v);
        if (!bytes || bytes.byteLength !== size) badArgument(signature, device, i, v);
        return bytes;
      },
    };
    this.#pack = buildPacker(signature, offsets, views);
    this.#launch = native.bind(block, Uint32Array.from(offsets));
  }

  /**
   * `config` checked for the kernel and written into the header, or the configuration the header
   * holds already when `config` is that one or says the same (nothing to check then).
   */
  configFor(config: LaunchConfig | LaunchOptions): LaunchConfig {
    const held = this.#config;
    if (held !== undefined && (config === held || configMatches(held, config))) return held;
    const checked = LaunchConfig.from(config);
    this.#owner.checkConfig(checked); // the device's limits, and the kernel's own
    this.#header.set(configHeader(checked));
    this.#config = checked;
    return checked;
  }

  /** Forgets the configuration it checked last: what the kernel allows changed. */
  forgetConfig(): void {
    this.#config = undefined;
  }

  /**
   * Launches with `args` on `lane`: packed now, then submitted when the lane is immediate, else
   * queued behind its work (or recorded, while it records).
   */
  launch(lane: StreamEngine<Recorder>, config: LaunchConfig, args: readonly unknown[], context: Launch | undefined): void {
    if (config !== this.#config) {
      this.#header.set(configHeader(config));
      this.#config = config;
    }
    if (lane.id !== this.#laneId) this.#onLane(lane);
    this.#pack(args, lane);
    if (!lane.immediate) return this.#queue(lane, config, args, context);
    let pause;
    try {
      pause = this.#launch(lane, config, args, context);
    } catch (error) {
      lane.faults.fail(error); // nothing was enqueued: not counted
    }
    lane.noteSubmitted();
    if (pause) lane.pause(pause);
  }

  /**
   * Checks and packs `args` for a launch with `config` now, enqueuing nothing: the block, header
   * included, as the native launch would read it, for a graph's kernel node or for
   * {@link submitPacked} later. With `lane`, the memory they use is noted as used there.
   */
  packed(config: LaunchConfig, args: readonly unknown[], lane?: StreamEngine): Uint8Array {
    this.#pack(args, lane);
    const block = this.#bytes.slice();
    new Uint32Array(block.buffer).set(configHeader(config));
    return block;
  }

  /**
   * Launches now with a block that a kernel of the same signature packed when the launch was
   * made (a template's, for its specialization): the arguments were checked then, and memory
   * closed since is freed behind this launch, in stream order. Returns a CPU kernel's pause.
   */
  submitPacked(lane: StreamEngine, config: LaunchConfig, bytes: Uint8Array, args: readonly unknown[], context: Launch) {
    this.#bytes.set(bytes); // its header holds `config` (see packed)
    this.#config = config;
    this.#onLane(lane);
    try {
      return this.#launch(lane, config, args, context);
    } catch (error) {
      lane.faults.fail(error);
    }
  }

  /** The command that launches with `bytes` as the block, when the lane's queue gets to it. */
  launchCommand(lane: StreamEngine, config: LaunchConfig, bytes: Uint8Array, args: readonly unknown[], context: Launch | undefined) {
    return () => {
      this.#bytes.set(bytes);
      this.#header[STREAM_WORD] = lane.lo; // a replayed block was packed for another lane
      this.#header[STREAM_WORD + 1] = lane.hi;
      this.#config = config;
      this.#laneId = lane.id;
      return this.#launch(lane, config, args, context);
    };
  }

  /** Writes the lane's handle into the header. */
  #onLane(lane: StreamEngine): void {
    this.#header[STREAM_WORD] = lane.lo;
    this.#header[STREAM_WORD + 1] = lane.hi;
    this.#laneId = lane.id;
    this.#owner.usedOn(lane);
  }

  /**
   * A launch behind work in the lane's queue: the packed block and the arguments are copied now
   * (later changes by the caller do not reach the kernel) and put back when it goes. A recorder
   * gets the block and the arguments as they are, and copies what it keeps (a replayed value whose
   * launch is the same as one recorded before keeps nothing).
   */
  #queue(lane: StreamEngine<Recorder>, config: LaunchConfig, args: readonly unknown[], context: Launch | undefined): void {
    const recorder = lane.recorder;
    if (recorder) return this.#owner.record(recorder, config, context ? context.given : args, this.#bytes);
    const bytes = this.#bytes.slice();
    const given = context ? context.given : elementsOf(args); // a private plain copy: nobody else can change it
    lane.run(this.launchCommand(lane, config, bytes, given, context));
  }
}
