// The envelope a value travels in through a GPU pipeline: the value, its lane (stream), the
// device resources attached to it, and the count of operators still holding it.
import type { DType } from '../../core/base/dtype.js';
import type { DeviceArray, HostArray, Memory } from '../../core/api/memory.js';
import { Stream } from '../../core/api/stream.js';
import { isInstance, typeError, type CudaError } from '../../core/base/errors.js';
import type { Lane } from './lane-pool.js';
import type { LaneEngine } from './pool-engine.js';
import type { PipelineError } from './pipeline-error.js';
import { checkSlotName, type NamedArray } from './slots.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../../core/base/constructor-token.js';
import { timeDeviceSpan, timeHostSpan } from '../timeline/timeline.js';

export { PipelineError } from './pipeline-error.js';

/**
 * Lists of pooled memory that values are done with, for the values that come next (about as
 * many as values in flight, at most this many).
 */
const spareLists: (Memory | undefined)[][] = [];
const MAX_SPARE_LISTS = 4096;
const RELEASED: (Memory | undefined)[] = [];

/**
 * What `buffers` is: an instance of a class of its own, which the engine sizes to the slots the
 * first of them get as their values pass the operators (an object literal holds room for four,
 * twice the memory). `results` stays a literal: its slots come after the value's device work, when
 * the engine would have sized a class's instances already, for none.
 */
class ValueBuffers {}

/**
 * The value `value`, the `index`th of its source, on `lane` (what onStreams, lanesFrom and framesFrom
 * make); `done(work)` is called once its work is done and its memory given back.
 */
export let makeWork: <T>(value: T, index: number, lane: Lane, done: (work: AnyWork) => void) => Work<T>;

/**
 * Settles a failure of the value `work`: returns what to error the pipeline with, or
 * undefined when the pool's `onDeviceFault` function took it (see PoolEngine.faultOf).
 */
export let settleFailure: (work: AnyWork, failure: PipelineError) => unknown;

/**
 * A pinned staging array from the lanes' pool, kept by `work` and returned with the rest of its memory.
 */
export let stagingArray: <D extends DType>(work: AnyWork, dtype: D, length: number) => HostArray<D>;

/**
 * Gives `work` pooled memory to keep, which goes back to the lane with the rest (a producer's frame).
 */
export let adoptMemory: (work: AnyWork, memory: Memory) => void;

/**
 * Takes pooled memory out of `work`'s keeping, for lending it to the subscriber,
 * who gives it back to the lane (returned, for a LentArray).
 */
export let lendMemory: (work: AnyWork, memory: Memory) => LaneEngine;

/**
 * Whether the pool of `work` has a timeline. Operators on a hot path (launch, upload,
 * download) enqueue at once without it, and only through {@link stageWork} with it, so that an
 * untimed value costs no closure per stage.
 */
export let isTimed: (work: AnyWork) => boolean;

/**
 * Enqueues a stage of `work`'s device work, timed when the pool has a timeline (with the bytes
 * it moves, for its rate).
 */
export let stageWork: (work: AnyWork, name: string, enqueue: () => void, bytes?: number) => void;

/**
 * Records host work of `work` that ran from `start` (performance.now()) until now.
 */
export let hostSpan: (work: AnyWork, name: string, start: number, bytes?: number) => void;

/**
 * Has `done(work, error, arg)` called once the value's device work given so far has
 * finished (see Stream.afterValue), on the main thread: the work itself is what its lane's
 * notification carries, so that waiting costs no closure. A second operator waiting while the
 * first still does (none does today) gets a waiter of its own.
 */
export let waitForValue: (work: AnyWork, done: (work: AnyWork, error: CudaError | undefined, arg: unknown) => void, arg: unknown) => void;

/**
 * An operator keeps the value `work` (and its resources) until it releases it, which it does
 * from the completion point it has just enqueued on the value's stream, behind all of the
 * value's work so far: called after that enqueue, as a completion point that could not be
 * enqueued holds nothing.
 */
export let holdValue: (work: AnyWork) => void;

/**
 * Releases the value `work` once the device work enqueued on its lane so far has finished; the
 * last to release it returns the pooled resources and frees the value's place in flight. When a
 * holder's completion point is the last thing enqueued, it releases at once: that holder releases
 * later than this call would, and no second notification is needed for the same place in the
 * stream.
 */
export let releaseValueWhenDone: (work: AnyWork) => void;

/**
 * Releases the value `work` now: its device work is known to be done.
 */
export let releaseValue: (work: AnyWork) => void;

/**
 * A value bound to a stream lane, with the device resources its work uses.
 *
 * `B` and `R` are the named buffers and results that the operators before have attached, e.g.
 * `{ gray: DeviceArray<'u8'> }` after `launch(k, config, [(w) => w.device('u8', n, 'gray')])`
 * and `{ gray: Uint8Array }` after `download((w) => w.buffers.gray, 'gray')`: the operators infer
 * them, so that user code reads each slot with its type.
 */
export class Work<T, B = {}, R = {}> {
  /** The value from the source. */
  readonly value: T;
  /** Its position in the source, from 0. */
  readonly index: number;
  /** The lane whose stream carries its device work. */
  readonly lane: Lane;
  /** Device arrays attached by operators, by name (e.g. `upload` names its array `input`). */
  readonly buffers: B = new ValueBuffers() as B;
  /** Host data attached by `download`, by name. */
  readonly results: R = {} as R;
  /** Pooled memory that goes back with the value: the first `#kept` entries of a reused list. */
  #pooled: (Memory | undefined)[] = spareLists.pop() ?? [];
  #kept = 0;
  readonly #done: (work: AnyWork) => void;
  #holds = 1;
  /** A failure of the value has been settled already. */
  #failed = false;
  /** The stream's command count just after a holder's completion point, which covers all before it. */
  #coveredAt = -1;
  /** The operator waiting for the value's completion (see waitForValue), and what it gave with it. */
  #waiting: ((work: AnyWork, error: CudaError | undefined, arg: unknown) => void) | undefined;
  #waitArg: unknown;

  static #make<T>(value: T, index: number, lane: Lane, done: (work: AnyWork) => void): Work<T> {
    return new Work(CONSTRUCTOR_TOKEN, value, index, lane, done);
  }

  private constructor(token: ConstructorToken, value: T, index: number, lane: Lane, done: (work: AnyWork) => void) {
    checkConstructorToken(token, 'a Work', 'onStreams(), lanesFrom() or framesFrom()');
    this.value = value;
    this.index = index;
    this.lane = lane;
    this.#done = done;
  }

  /** The stream this value's device work is enqueued on. */
  get stream(): Stream {
    return this.lane.stream;
  }

  /**
   * A device array from the lanes' pool, returned to it when this value's work is done; with a
   * `name`, also attached as `buffers[name]`, and typed so that the operator that receives it
   * (see {@link NamedArray}) gives the operators after it `buffers[name]` with its type.
   * @throws TypeError for an unknown `dtype`, a `length` that is not an integer or a `name` that
   * is not a non-empty string; RangeError for a negative or too large `length` (checked on every
   * call, before a buffer is taken).
   * @example
   * launch(blur, config, [(w) => w.buffers.input, (w) => w.device('f32', n, 'blurred'), n]) // then w.buffers.blurred
   */
  device<D extends DType>(dtype: D, length: number): DeviceArray<D>;
  device<D extends DType, N extends string>(dtype: D, length: number, name: N): NamedArray<N, D>;
  device<D extends DType>(dtype: D, length: number, name?: string): DeviceArray<D> {
    if (name !== undefined) checkSlotName('name', name);
    const array = this.lane.engine.device(dtype, length);
    this.#keep(array);
    if (name !== undefined) (this.buffers as Record<string, DeviceArray>)[name] = array;
    return array;
  }

  /**
   * A device array of `stream`'s device from the lanes' pool, ordered on `stream`, returned to it
   * when this value's work is done: for a {@link fanOut} branch on another device, whose side
   * stream `stream` is. With a `name`, also attached as `buffers[name]`, as {@link device} does.
   * @throws TypeError or RangeError as {@link device} does, and TypeError when `stream` is not a Stream.
   * @example
   * fanOut(2, (w, stream, i) => {
   *   const input = w.deviceOn(stream, 'f32', n); // on branch i's device
   *   stream.copy(input, w.buffers.input);
   *   stream.launch(blur, config, [input, n]);
   * }, { devices: [a, b] })
   */
  deviceOn<D extends DType>(stream: Stream, dtype: D, length: number): DeviceArray<D>;
  deviceOn<D extends DType, N extends string>(stream: Stream, dtype: D, length: number, name: N): NamedArray<N, D>;
  deviceOn<D extends DType>(stream: Stream, dtype: D, length: number, name?: string): DeviceArray<D> {
    if (!isInstance(stream, Stream)) typeError('stream', 'a Stream', stream);
    if (name !== undefined) checkSlotName('name', name);
    const array = this.lane.engine.pool.deviceArray(stream, dtype, length);
    this.#keep(array);
    if (name !== undefined) (this.buffers as Record<string, DeviceArray>)[name] = array;
    return array;
  }

  #settle(failure: PipelineError): unknown {
    const first = !this.#failed;
    this.#failed = true;
    const lane = this.lane.engine;
    return lane.pool.faultOf(lane, failure, first);
  }

  #staging<D extends DType>(dtype: D, length: number) {
    const array = this.lane.engine.host(dtype, length);
    this.#keep(array);
    return array;
  }

  #adopt(memory: Memory): void {
    this.#keep(memory);
  }

  #lend(memory: Memory): LaneEngine {
    const pooled = this.#pooled;
    const at = pooled.indexOf(memory);
    if (at >= 0 && at < this.#kept) {
      pooled[at] = pooled[--this.#kept]; // the order they go back in does not matter
      pooled[this.#kept] = undefined;
    }
    return this.lane.engine;
  }

  #keep(memory: Memory): void {
    // Memory taken for a value released already stays with it, as it did before lists were reused.
    if (this.#pooled === RELEASED) this.#pooled = [];
    this.#pooled[this.#kept++] = memory;
  }

  get #timed(): boolean {
    return this.lane.pool.timeline !== undefined;
  }

  #stage(name: string, enqueue: () => void, bytes = 0): void {
    const timeline = this.lane.pool.timeline;
    if (timeline) timeDeviceSpan(timeline, this.stream, this.lane.index, this.index, name, enqueue, bytes);
    else enqueue();
  }

  #hostSpan(name: string, start: number, bytes = 0): void {
    const timeline = this.lane.pool.timeline;
    if (timeline) timeHostSpan(timeline, this.lane.index, this.index, name, start, bytes);
  }

  #waitFor(done: (work: AnyWork, error: CudaError | undefined, arg: unknown) => void, arg: unknown): void {
    const spin = this.lane.pool.spin;
    if (this.#waiting !== undefined) return this.stream.afterValue({ valueDone: (error) => done(this, error, arg) }, spin);
    this.#waiting = done;
    this.#waitArg = arg;
    try {
      this.stream.afterValue(this, spin);
    } catch (error) {
      this.#waiting = undefined;
      this.#waitArg = undefined;
      throw error;
    }
  }

  /** @internal See {@link waitForValue}: the lane's notification of the value's completion. */
  valueDone(error: CudaError | undefined): void {
    const done = this.#waiting!;
    const arg = this.#waitArg;
    this.#waiting = undefined;
    this.#waitArg = undefined;
    done(this, error, arg);
  }

  #hold(): void {
    this.#holds++;
    this.#coveredAt = this.stream.engine.given;
  }

  #releaseWhenDone(): void {
    if (this.#coveredAt === this.stream.engine.given) this.#release();
    else this.stream.device.engine.afterWork(this.stream.engine, () => this.#release());
  }

  #release(): void {
    if (--this.#holds !== 0) return;
    const pooled = this.#pooled;
    this.#pooled = RELEASED;
    const lane = this.lane.engine;
    const kept = this.#kept;
    this.#kept = 0;
    for (let i = 0; i < kept; i++) {
      const memory = pooled[i]!;
      pooled[i] = undefined;
      lane.give(memory);
    }
    // The list goes to a later value: a new one grew a backing store of 16 entries at its first push.
    if (pooled !== RELEASED && spareLists.length < MAX_SPARE_LISTS) spareLists.push(pooled);
    this.#done(this);
  }
  static {
    makeWork = (value, index, lane, done) => Work.#make(value, index, lane, done);
    settleFailure = (work, failure) => work.#settle(failure);
    stagingArray = (work, dtype, length) => work.#staging(dtype, length);
    adoptMemory = (work, memory) => work.#adopt(memory);
    lendMemory = (work, memory) => work.#lend(memory);
    isTimed = (work) => work.#timed;
    stageWork = (work, name, enqueue, bytes) => work.#stage(name, enqueue, bytes);
    hostSpan = (work, name, start, bytes) => work.#hostSpan(name, start, bytes);
    waitForValue = (work, done, arg) => work.#waitFor(done, arg);
    holdValue = (work) => work.#hold();
    releaseValueWhenDone = (work) => work.#releaseWhenDone();
    releaseValue = (work) => work.#release();
  }
}

/** A Work envelope with any value and any slots (slots are covariant: more is assignable to fewer). */
export type AnyWork = Work<unknown, unknown, unknown>;
