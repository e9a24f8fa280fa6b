// Over 400 lines: Stream's whole public surface, each member documented with an example.
// Streams: ordered lanes of device work. Every method enqueues and returns at once; completion
// comes back from the completion queue, never by blocking or polling. Each member checks what it
// is given and hands the work to an engine below: the stream's queue (queue/stream-engine.ts),
// each concern in a file of its own (device/stream-commands, -steps, -waits, spin-wait.ts), a
// kernel's launch block (kernels/), a capture and its conditional nodes (graphs/capture.ts).
import { EventEmitter } from 'eventemitter3';
import { brand, isInstance, rangeError, received, typeError, type CudaError } from '../base/errors.js';
import { checkDType, type DType } from '../base/dtype.js';
import type { NativeStream } from '../native/types.js';
import { allocateDeviceArray, checkDeviceLength, type DeviceArray, type Memory } from './memory.js';
import { watchByNotification, type ValueWaiter } from '../queue/host-steps.js';
import { StreamEngine } from '../queue/stream-engine.js';
import { letStepTimersGo } from '../queue/step-timers.js';
import type { HostLaunchOptions, UserData } from '../queue/user-data.js';
import { Device } from './device.js';
import { Event, recordOn, waitOn, type EventOptions } from './event.js';
import type { Recorder } from '../device/recorder.js';
import { SpinningWaits } from '../device/spin-wait.js';
import { readStreamOptions, type StreamEvents, type StreamOptions } from '../device/stream-options.js';
import { allocOn, copyOn, fillOn, hostFunctionOn } from '../device/stream-commands.js';
import { ValueWatches, hostLaunchOn, onDoneOn, valueDoneOn, valueWatchOn } from '../device/stream-steps.js';
import { flushedOn, queryOn, synchronizedOn } from '../device/stream-waits.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';
import { checkOptions } from '../base/options.js';
import type { GraphCondition } from '../device/condition.js';
import type { Signature } from '../kernels/kernel-types.js';
import type { LaunchConfig, LaunchOptions } from '../kernels/launch-config.js';
import { captureOf, captureOn, checkBody } from '../graphs/capture.js';
import { checkCases, type ConditionOptions, type ConditionTest, type LoopOptions } from '../graphs/conditions.js';
import { Kernel, type KernelArgs } from './kernel.js';
import { Graph, loadConditionKernelsOn, makeGraph } from './graph.js';

const NON_BLOCKING = 0x1;

/** Checks that the argument `stream` is a Stream of `device`: a TypeError, or a RangeError naming both devices. */
export function checkStreamOf(stream: unknown, device: Device): asserts stream is Stream {
  if (!isInstance(stream, Stream)) typeError('stream', 'a Stream', stream);
  if (stream.device !== device) rangeError('stream', `a stream of ${device}`, received(`a stream of ${stream.device}`));
}

/**
 * A new stream of `device`: what {@link Device.createStream} makes (the constructor is private to
 * the class, which keeps it out of the API).
 */
export let createStream: (device: Device, options?: StreamOptions) => Stream;

/**
 * An ordered lane of device work on one device. Create with {@link Device.createStream}.
 * Emits `error` when a host step fails (see {@link StreamEvents}).
 */
export class Stream extends EventEmitter<StreamEvents> {
  /** The device the stream belongs to. */
  readonly device: Device;
  /** Scheduling priority (lower is more urgent). */
  readonly priority: number;
  /** Whether the stream skips implicit synchronization with the legacy default stream. */
  readonly nonBlocking: boolean;
  /** @internal The stream's work as the queue sees it. */
  readonly engine: StreamEngine<Recorder>;
  readonly #spins: SpinningWaits;
  #values: ValueWatches | undefined; // a pipeline's values watched through events (CUDA)
  /** The stream's entry among its device's open lanes. */
  readonly #open: WeakRef<StreamEngine>;
  readonly #reached = (mark: number) => this.#reachedCompletionPoint(mark);
  static {
    brand(this, (value) => #spins in value);
  }

  private constructor(token: ConstructorToken, device: Device, native: NativeStream, foreign = false) {
    checkConstructorToken(token, 'a Stream', 'device.createStream()');
    super();
    this.device = device;
    this.engine = new StreamEngine(native, device.engine.faults, this, foreign);
    this.priority = native.priority();
    this.nonBlocking = (native.flags() & NON_BLOCKING) !== 0;
    this.#spins = new SpinningWaits(this.engine, device.engine);
    this.#open = device.engine.openLanes.track(this.engine);
  }

  static #create(device: Device, options: StreamOptions = {}): Stream {
    const { priority, nonBlocking } = readStreamOptions(options);
    try {
      return new Stream(CONSTRUCTOR_TOKEN, device, new device.engine.backend.Stream(device.engine.native, nonBlocking ? NON_BLOCKING : 0, priority));
    } catch (error) {
      device.engine.fail(error);
    }
  }

  /**
   * Wraps a stream created by other CUDA code (another addon, a library). rxcuda never destroys
   * a wrapped stream; `close()` only stops this object from enqueuing.
   * @param handle the CUstream, as a bigint
   * @param device the device whose primary context owns the stream
   * @throws TypeError for a bad `handle` or `device`, and on the host device, which has no
   * foreign streams; RangeError when the stream belongs to another context.
   * @example
   * const theirs = Stream.fromHandle(otherLibrary.streamHandle(), Device.get(0)); // a CUstream as a bigint
   * theirs.launch(kernel, config, args); // ordered with the other library's work on that stream
   */
  static fromHandle(handle: bigint, device: Device): Stream {
    if (typeof handle !== 'bigint' || handle <= 0n || handle >= 2n ** 64n)
      typeError('handle', 'a CUstream handle as a non-zero bigint', handle);
    if (!isInstance(device, Device)) typeError('device', 'a Device', device);
    device.engine.checkUsable();
    return new Stream(CONSTRUCTOR_TOKEN, device, new device.engine.backend.Stream(device.engine.native, 0, 0, handle), true);
  }

  /**
   * The CUstream handle, for other CUDA code. Work that rxcuda still holds in the stream's queue
   * (behind an unsettled host step) has not reached it yet: `await stream.flushed()` before
   * handing the handle over.
   */
  get handle(): bigint {
    return this.engine.handle;
  }

  /** True once `close()` was called; nothing more can be enqueued. */
  get closed(): boolean {
    return this.engine.closed;
  }

  /**
   * Allocates `length` elements of `dtype` from the device's memory pool, ordered on this
   * stream: the memory can be used by work enqueued on this stream from now on. Returns at once,
   * also while work waits in the stream's queue.
   * @throws TypeError for an unknown `dtype`; RangeError for a bad `length`, or one whose bytes
   * are more than 2^53 − 1.
   * @example
   * using x = stream.alloc('f32', 1 << 20); // freed in stream order when closed
   * stream.fill(x, 0);
   */
  alloc<D extends DType>(dtype: D, length: number): DeviceArray<D> {
    checkDType('dtype', dtype);
    checkDeviceLength(dtype, length);
    return allocOn(this.engine, () => allocateDeviceArray(this.engine, this.device.engine, dtype, length));
  }

  /**
   * Copies all of `src` into `dst` (host→device, device→host or device→device), in stream order.
   * Both have the same element type (a copy is never a silent reinterpretation: to move the bytes
   * of an f32 array into a u32 one, reinterpret on the host, e.g. with a Uint32Array over
   * `host.data.buffer`, or in a kernel). Use `subarray` for parts of arrays.
   *
   * Between device arrays of two devices (the stream's and another of its backend) it is a peer
   * copy, ordered on this stream only: as with any memory another stream wrote, make this stream
   * `wait` for an event recorded after that work first. It is direct where the two devices have
   * peer access, else staged through host memory and slower (see {@link Device.canAccessPeer}).
   * @throws TypeError for non-memory or closed arguments, or different element types; RangeError
   * for different lengths or device memory of another device (but the peer of such a copy).
   * Nothing is enqueued when it throws.
   * @example
   * using input = device.allocHost('f32', n);
   * using x = stream.alloc('f32', n);
   * stream.copy(x, input); // host to device
   * stream.copy(input, x); // and back
   */
  copy<D extends DType>(dst: Memory<D>, src: Memory<D>): void {
    copyOn(this.engine, this.device.engine, dst, src);
  }

  /**
   * Sets every element of `dst` to `value`, in stream order.
   * @throws TypeError/RangeError when `value` does not fit `dst.dtype`.
   * @example
   * stream.fill(x, 0); // every element of x is 0, once the work before it has run
   */
  fill<D extends DType>(dst: Memory<D>, value: D extends 'i64' | 'u64' ? number | bigint : number): void {
    fillOn(this.engine, this.device.engine, dst, value);
  }

  /**
   * Launches `kernel` with a grid, a block and arguments that match its signature. Everything is
   * checked before anything is enqueued; the launch itself is one native call.
   * @throws TypeError/RangeError naming the bad argument; CudaError when the driver refuses.
   * @example
   * stream.launch(saxpy, { grid: Math.ceil(n / 256), block: 256 }, [n, 2, x, y]);
   */
  launch<S extends Signature>(kernel: Kernel<S>, config: LaunchConfig | LaunchOptions, args: KernelArgs<S>): void {
    if (!isInstance(kernel, Kernel)) typeError('kernel', 'a Kernel', kernel);
    // Options (hooks) it has none of, rather than leave them unread: hooks are a kernel's, global or a pipeline's.
    if (arguments.length > 3) typeError('options', 'absent (hooks go to kernel.onLaunch, onLaunch or the launch operator)', arguments[3]);
    (kernel as Kernel<S>).engine.launchOn(this, config, args);
  }

  /**
   * Records an event at this point of the stream. Waits made for it from now on (on any stream)
   * wait for this record, also while it waits in this stream's queue.
   * @param options `timing: true` to use the event for elapsed-time measurements (default false),
   * or an event of this device to record again.
   * @throws TypeError for a closed event; RangeError for an event of another device.
   * @example
   * const uploaded = copies.record();
   * compute.wait(uploaded); // compute's later work runs after the copies before the record
   */
  record(options?: EventOptions | Event): Event {
    return recordOn(this.engine, this.device, options, this);
  }

  /**
   * Makes work enqueued on this stream from now on wait until `event` has completed (work of
   * another stream can be ordered after this one this way). Returns at once; when the event's
   * record still waits in its stream's queue, this stream's later work waits for it in rxcuda's
   * queue, never on the device. The event may be of another device (of the same backend): its
   * work is then ordered before this device's.
   * @throws TypeError for a closed event or one that is not an Event; RangeError for an event of
   * another backend.
   * @example
   * producer.launch(fillKernel, config, [x]);
   * consumer.wait(producer.record());
   * consumer.launch(useKernel, config, [x]); // runs after fillKernel
   */
  wait(event: Event): void {
    waitOn(this.engine, this.device, event);
  }

  /**
   * True when all work enqueued so far has completed, work in the stream's queue included (and
   * host steps settled). Never waits.
   * @example
   * if (stream.query()) console.log('idle: everything enqueued so far has completed');
   */
  query(): boolean {
    return queryOn(this.engine);
  }

  /**
   * Resolves once nothing of this stream waits in rxcuda's queues: every host step enqueued so far
   * has settled, and the work behind them has gone past the stream's device thread (on a GPU) to
   * the driver (it may still be running). Await
   * it before other CUDA code enqueues on {@link handle}, so that its work follows all of this
   * stream's. Rejects with a DeadlockError when a host step of this stream waits for it, and, as
   * {@link synchronized} does, with a TypeError once the stream is closed (the work queued then
   * still goes to the driver: await this before `close()`) or the device's CudaError once it broke.
   * @example
   * stream.hostLaunch(async () => prepareInputs());
   * await stream.flushed(); // nothing of the stream waits in rxcuda's queue now
   * otherLibrary.enqueueOn(stream.handle); // follows all of the stream's work
   */
  flushed(): Promise<void> {
    return flushedOn(this.engine);
  }

  /**
   * Runs `fn` on the main thread when the stream reaches this point, and holds the stream until
   * it settles: device work enqueued after it waits for it, also when `fn` is async (until its
   * Promise settles). That work waits in the stream's queue in rxcuda and goes to the driver, in
   * order, when `fn` settles: the device never waits for JavaScript, so any number of streams may
   * hold any number of steps, and this never blocks. An async `fn` cannot wait for its own stream
   * (`synchronized()`, `flushed()`, `onDone()`, an event recorded after it): such a wait is refused
   * at once with a {@link DeadlockError}. A step that throws or rejects is reported through the
   * stream's `error` event (a process warning, code `RXCUDA_STEP_FAILED`, when nobody listens),
   * and the stream goes on.
   * @param options `userData`: bytes copied now; `fn` receives the copy. `timeout`: milliseconds
   * `fn` may take once started, after which the stream goes on without it and a
   * `HostStepTimeoutError` goes to the `error` event (see {@link HostLaunchOptions.timeout}).
   * @throws TypeError for a non-function or unreadable `userData`, RangeError for a bad `timeout`; CudaError
   * (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) on a stream under graph capture. Nothing is enqueued
   * when it throws.
   * @example
   * stream.copy(hostResult, x);
   * stream.hostLaunch(() => console.log('first element', hostResult.data[0])); // after the copy
   * stream.launch(kernel, config, [x]); // waits for the step to settle
   */
  hostLaunch<D extends UserData = ArrayBuffer>(fn: (userData: D | undefined) => unknown, options: HostLaunchOptions<D> = {}): void {
    hostLaunchOn(this.engine, fn, options);
  }

  /**
   * Calls `fn` on the main thread once the work enqueued so far has finished, without holding
   * the stream (later work does not wait for `fn`). `fn` gets the CudaError that stopped the
   * stream, if one did. Failures of `fn` are reported like those of host steps. It returns no
   * Promise, so it throws what refuses it, at once, and `fn` is never called then.
   * @throws TypeError for a non-function `fn` or a closed stream; the CudaError that broke the
   * device; GraphError (`forbidden`) inside {@link capture}, which it ends; CudaError
   * (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) on a stream that other code captures; DeadlockError
   * from an async host step of this stream.
   * @example
   * stream.onDone((error) => {
   *   if (error) console.error('the stream stopped', error);
   *   else console.log('the work enqueued so far has finished');
   * });
   */
  onDone(fn: (error: CudaError | undefined) => unknown): void {
    if (typeof fn !== 'function') typeError('fn', 'a function', fn);
    onDoneOn(this.engine, fn, watchByNotification(this.engine), this.#reached, 'stream.onDone()');
  }

  /**
   * @internal {@link onDone} for a pipeline's values (see LanePool), with no closure per value: on
   * a CUDA stream with `spin` > 0 watched through an event (value-watches.ts), else notified on the
   * stream's notifier, so that the lane goes on at once with its next value. A member of the
   * stream, as the value watches it makes and the `idle` event it emits are the stream's own.
   */
  afterValue(waiter: ValueWaiter, spin: number): void {
    if (spin > 0 && this.device.kind === 'cuda')
      return valueWatchOn(this.engine, (this.#values ??= new ValueWatches(this.engine, this.device.engine, this.#reached)), waiter, spin);
    valueDoneOn(this.engine, waiter, this.#reached);
  }

  /**
   * Enqueues a native host function (a `CUhostFn` from compiled code) with its user-data pointer,
   * as they are. It runs on a driver thread, not in JavaScript, and must not call CUDA. Memory
   * passed as `userData` stays allocated until the function has run.
   * @throws TypeError for a null or non-bigint function pointer.
   * @example
   * // `callback` is a CUhostFn's address from compiled code, e.g. another addon's export
   * stream.launchHostFunction(callback, userDataPointer);
   */
  launchHostFunction(fn: bigint, userData: bigint | Memory = 0n): void {
    hostFunctionOn(this.engine, this.device.engine, fn, userData);
  }

  /**
   * Resolves when all work enqueued so far has completed (work in the stream's queue included),
   * without blocking the main thread: the driver's callback wakes it. Rejects with the CudaError
   * that stopped the stream.
   *
   * With `spin`, a native thread watches for the stream reaching this point (a word the device
   * writes to pinned memory) for up to `spin` microseconds instead, which resolves sooner and
   * spares the enqueue of the driver's callback. The cost is CPU time: the watcher keeps one core
   * busy while it watches (and 200 µs after its last watch, so that back-to-back waits find it
   * awake), and the event loop keeps turning instead of sleeping for as long, looking at the
   * word itself each turn, so that the write is taken at once (the watcher bounds the wait).
   * Past `spin` (or once the stream is closed), a completion point behind the same place settles
   * the Promise, errors included. The watch starts when the wait reaches the driver.
   * @throws (synchronously) TypeError or RangeError for bad options, GraphError (`forbidden`)
   * inside {@link capture}, which it ends; the Promise rejects with a TypeError for a closed
   * stream, the CudaError that stopped the stream or broke its device, or a DeadlockError when a
   * host step of this stream waits for it (see {@link hostLaunch}).
   * @example
   * stream.launch(kernel, config, args);
   * await stream.synchronized(); // woken by the driver; the main thread never blocks
   * await stream.synchronized({ spin: 200 }); // or watched for up to 200 µs, for less latency
   */
  synchronized(options: { readonly spin?: number } = {}): Promise<void> {
    return synchronizedOn(this.engine, this.#spins, options, this.#reached);
  }

  /**
   * Records the work given to this stream while `fn` runs (until its Promise settles, for an
   * async `fn`) into a {@link Graph}, instead of enqueuing it: kernel launches, copies, fills,
   * event records and waits, native host functions, and host steps. A host step (`hostLaunch`)
   * becomes a JavaScript step of the graph: the device never waits for JavaScript, so each launch
   * of the graph runs the step between the two parts of the graph it splits.
   *
   * Work that a graph cannot hold ends the capture: `synchronized`, `onDone`, `query`, `alloc`,
   * `close`, or launching an executable on the stream. The call throws a GraphError
   * (`forbidden`) that says what it was, every later call of the capture throws it too, and the
   * returned Promise rejects with it. The stream stays usable once `fn` has settled.
   *
   * Only what is given to this Stream object is captured: other CUDA code enqueuing on
   * {@link Stream.handle} meanwhile goes to the device as usual, as does rxcuda's own bookkeeping.
   * @param fn called with this stream; may be async.
   * @returns the captured graph, which the caller closes.
   * @throws TypeError for a non-function; GraphError (`capturing`) when the stream is already
   * capturing, (`nested`) when called inside another capture's function. The Promise rejects
   * with a TypeError for a closed stream, or the CudaError that broke the device.
   * @example
   * ```ts
   * using graph = await stream.capture((s) => {
   *   s.launch(scale, config, [n, 2, x]);
   *   s.hostLaunch(() => console.log('between the kernels'));
   *   s.launch(scale, config, [n, 3, x]);
   * });
   * using exec = graph.instantiate();
   * for (let i = 0; i < 1000; i++) exec.launch(stream);
   * ```
   */
  capture(fn: (stream: this) => unknown): Promise<Graph> {
    if (typeof fn !== 'function') typeError('fn', 'a function', fn);
    return captureOn(this.engine, () => makeGraph(this.device), () => loadConditionKernelsOn(this.device), () => fn(this));
  }

  /**
   * While capturing: a new condition of the graph (or of the body being recorded), for one
   * conditional node recorded there to read, and for kernels there or in the bodies below to
   * set: a kernel whose signature declares a `'condition'` parameter takes it (see
   * {@link GraphCondition}).
   * @throws GraphError (`condition`) when the stream is not capturing; RangeError for an
   * `initial` that is not an unsigned 32-bit integer.
   * @example
   * const graph = await stream.capture((s) => {
   *   const more = s.condition({ initial: 1 });
   *   s.whileLoop(more, () => s.launch(relax, config, [grid, more]), { maxIterations: 10_000 });
   * });
   */
  condition(options: ConditionOptions = {}): GraphCondition {
    const capture = captureOf(this.engine, 'condition');
    checkOptions('options', options, ['initial']);
    return capture.condition(options.initial);
  }

  /**
   * While capturing: records a node that sets `condition` from the first element of `memory`
   * when it runs: to the element itself (`'value'`, the default: a switch's case), or to 1 or 0
   * by a comparison (`'!= 0'`, `'> 0.5'`). Integer elements and f32/f64 ones are read.
   * @throws GraphError (`condition`) when the stream is not capturing, or for a condition of
   * another graph or part of it; TypeError for other memory; as {@link Stream.launch} otherwise.
   * @example
   * s.setCondition(more, residualAbove, '!= 0'); // at the end of a while loop's body
   */
  setCondition(condition: GraphCondition, memory: Memory, test: ConditionTest = 'value'): void {
    captureOf(this.engine, 'setCondition').setCondition(condition, memory, test);
  }

  /**
   * While capturing: a new condition, set from the first element of `memory` here (see
   * {@link Stream.setCondition}).
   * @example
   * const ok = s.conditionFrom(converged, '!= 0');
   * s.ifElse(ok, () => s.launch(finish, config, [grid]), () => s.launch(warn, config, [grid]));
   */
  conditionFrom(memory: Memory, test: ConditionTest = 'value', options: ConditionOptions = {}): GraphCondition {
    const capture = captureOf(this.engine, 'conditionFrom');
    checkOptions('options', options, ['initial']);
    const condition = capture.condition(options.initial);
    capture.setCondition(condition, memory, test);
    return condition;
  }

  /**
   * While capturing: records a conditional node that runs what `then` gives the stream when
   * `condition` is not zero. `then` runs at once, synchronously, with this stream, and what it gives the stream is
   * recorded into the node's body: kernels, copies, fills, library calls and further conditional
   * nodes. A host step, an event record or wait or a native host function there ends the capture
   * with a GraphError (`body`) that names it.
   * @throws GraphError (`condition`) when the stream is not capturing, or for a condition of
   * another graph or part of it, or one another node reads.
   * @example
   * s.ifThen(s.conditionFrom(count, '> 1000'), () => s.launch(compact, config, [x]));
   */
  ifThen(condition: GraphCondition, then: (stream: this) => unknown): void {
    const bodies = [checkBody(this, 'then', then)];
    captureOf(this.engine, 'ifThen').conditional('if', condition, bodies, undefined);
  }

  /**
   * While capturing: a conditional node that runs what `then` records when `condition` is not
   * zero, else what `otherwise` records (see {@link Stream.ifThen}).
   * @example
   * s.ifElse(ok, () => s.launch(finish, config, [x]), () => s.fill(x, 0));
   */
  ifElse(condition: GraphCondition, then: (stream: this) => unknown, otherwise: (stream: this) => unknown): void {
    const bodies = [checkBody(this, 'then', then), checkBody(this, 'otherwise', otherwise)];
    captureOf(this.engine, 'ifElse').conditional('if', condition, bodies, undefined);
  }

  /**
   * While capturing: a conditional node that runs what `body` records again and again while
   * `condition` is not zero (checked before each iteration, the first included): a kernel in the
   * body sets it, or {@link Stream.setCondition} does. With `maxIterations`, a loop that would
   * run more is stopped on the device, the graph goes on, and a {@link LoopLimitError} is
   * reported after the launch, through the stream's `error` event (or a pipeline's error).
   * @throws RangeError for a `maxIterations` that is not a whole number from 1 to 2^31 - 1; as
   * {@link Stream.ifThen} otherwise.
   * @example
   * const more = s.condition({ initial: 1 });
   * s.whileLoop(more, () => s.launch(relax, config, [grid, next, more]), { maxIterations: 10_000 });
   */
  whileLoop(condition: GraphCondition, body: (stream: this) => unknown, options: LoopOptions = {}): void {
    checkOptions('options', options, ['maxIterations', 'name']);
    const bodies = [checkBody(this, 'body', body)];
    captureOf(this.engine, 'whileLoop').conditional('while', condition, bodies, options);
  }

  /**
   * While capturing: a conditional node that runs what `cases[n]` records when `condition` is
   * `n`, and nothing when it is `cases.length` or more (see {@link Stream.ifThen}).
   * @throws RangeError for no cases; as {@link Stream.ifThen} otherwise.
   * @example
   * const which = s.conditionFrom(classOf);
   * s.switchOn(which, [() => s.launch(a, config, [x]), () => s.launch(b, config, [x])]);
   */
  switchOn(condition: GraphCondition, cases: readonly ((stream: this) => unknown)[]): void {
    const bodies = checkCases(cases).map((fn, i) => checkBody(this, `cases[${i}]`, fn));
    captureOf(this.engine, 'switchOn').conditional('switch', condition, bodies, undefined);
  }

  /**
   * Stops enqueuing and releases the stream; work already enqueued (queued work included) still
   * runs to completion. Idempotent. A stream from {@link Stream.fromHandle} is left to its owner.
   * @example
   * const stream = device.createStream();
   * stream.launch(kernel, config, args);
   * stream.close(); // the launch still runs
   */
  close(): void {
    if (this.engine.closed) return;
    this.engine.recorder?.interrupt('Closing the stream');
    this.device.engine.openLanes.untrack(this.#open);
    const native = this.engine.native;
    this.engine.close(this.device.engine.newEvent(), () => native.destroy()); // a foreign stream itself is left to its owner
    this.#spins.close();
    this.#values?.close();
    letStepTimersGo(this.engine);
  }

  /**
   * The same as `close()`, for `using`.
   * @example
   * {
   *   using stream = device.createStream();
   *   stream.launch(kernel, config, args);
   * } // closed here; the launch still runs
   */
  [Symbol.dispose](): void {
    this.close();
  }

  /** Emits `idle` if nothing was given since the completion point that was command number `mark`. */
  #reachedCompletionPoint(mark: number): void {
    this.engine.noteReached(mark);
    if (this.engine.given === mark && this.listenerCount('idle') > 0) this.emit('idle');
  }
  static {
    createStream = (device, options) => Stream.#create(device, options);
  }
}
