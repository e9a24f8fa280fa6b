// Streams: ordered lanes of device work. Every method enqueues and returns at once; completion
// comes back as a Promise resolved from the completion road, never by blocking or polling. The
// lane itself is thin: its queue is the scheduler's (scheduler.ts), host steps are host-steps.ts,
// spinning waits spin-wait.ts, and completion points behind closed streams completion-points.ts.
import { EventEmitter } from 'eventemitter3';
import type { NativeStream } from '../native/types.js';
import { addon } from '../native/addon.js';
import { CudaError, GraphError, checkCount, checkOptions, isInstance, nameOf, rangeError, typeError, received } from '../base/errors.js';
import { DTYPES, checkDType, type DType } from '../base/dtype.js';
import { DeviceArray, Memory, checkCopy, checkMemoryOf } from '../memory/memory.js';
import { checkScalar, scalarBits } from '../base/scalar.js';
import { Event, type EventOptions } from './event.js';
import { StreamQueue, type Command, type Pause } from '../queue/scheduler.js';
import { Capture, checkNotNested, runCapture, type Recorder } from '../graphs/capture.js';
import type { Graph } from '../graphs/graph.js';
import { SpinningWaits, checkSpin } from './spin-wait.js';
import { betweenDevices, peerCopy } from './peer-copy.js';
import { Device as DeviceClass, type Device } from './device.js';
import { Kernel, type KernelArgs, type Signature } from '../kernels/kernel.js';
import type { LaunchConfig, LaunchOptions } from '../kernels/launch-config.js';
import {
  checkNotCapturing, checkTimeout, copyUserData, doneStep, hostStep, letStepTimersGo, notification, notified,
  reportStepError, routedCommand, type DoneWatch, type HostLaunchOptions, type HostStepContext, type UserData,
} from '../queue/host-steps.js';

/** Events a stream emits. Use RxJS's `fromEvent(stream, 'idle')` to observe them as streams. */
export interface StreamEvents {
  /**
   * A host step or notification threw or rejected, or queued device work failed when it went to
   * the driver; the stream went on.
   */
  error: (error: unknown, context: HostStepContext) => void;
  /**
   * All work enqueued so far has finished, as seen at a completion point (a `synchronized()`,
   * `onDone` or pipeline value) with nothing enqueued after it.
   */
  idle: () => void;
}

/** Options for {@link Device.createStream}. */
export interface StreamOptions {
  /**
   * Scheduling priority; lower numbers are more urgent. An integer that fits an int; CUDA clamps
   * it to the device's range (typically -5..0), and {@link Stream.priority} tells the one used.
   * @default 0
   */
  readonly priority?: number;
  /**
   * Whether the stream skips implicit synchronization with the legacy default stream.
   * @default false
   */
  readonly nonBlocking?: boolean;
}

const NON_BLOCKING = 0x1;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * An ordered lane of device work on one device. Create with {@link Device.createStream}.
 * Emits `error` when a host step fails (see {@link StreamEvents}).
 */
export class Stream extends EventEmitter<StreamEvents> {
  /** The device the stream belongs to. */
  readonly device: Device;
  /** @internal */
  readonly native: NativeStream;
  /** Scheduling priority (lower is more urgent). */
  readonly priority: number;
  /** Whether the stream skips implicit synchronization with the legacy default stream. */
  readonly nonBlocking: boolean;
  /** @internal The handle's low and high 32 bits, written into each launch's header. */
  readonly lo: number;
  /** @internal */
  readonly hi: number;
  readonly #handle: bigint;
  readonly #queue: StreamQueue;
  readonly #spins = new SpinningWaits(this);
  /** Commands ever given to the stream: unchanged between two moments means nothing was enqueued. */
  #enqueued = 0;
  /** This stream's entry in its device's open streams (see Device.openStreams). */
  readonly #open = new WeakRef(this);
  /** Recorded last of all at close(): what completion points behind a closed stream wait for. */
  #tail: Event | undefined;
  /** What the stream's work goes into while it captures (or while a replay records a value). */
  #capture: Recorder | undefined;

  private constructor(device: Device, native: NativeStream) {
    super();
    this.device = device;
    this.native = native;
    this.#handle = native.handle();
    this.lo = Number(this.#handle & 0xffff_ffffn);
    this.hi = Number(this.#handle >> 32n);
    this.priority = native.priority();
    this.nonBlocking = (native.flags() & NON_BLOCKING) !== 0;
    this.#queue = new StreamQueue((error) => this.#queuedFailure(error));
    device.openStreams.add(this.#open);
  }

  /** @internal Use {@link Device.createStream}. */
  static create(device: Device, options: StreamOptions = {}): Stream {
    checkOptions('options', options);
    const { priority = 0, nonBlocking = false } = options;
    if (typeof priority !== 'number' || !Number.isInteger(priority)) typeError('priority', 'an integer', priority);
    // The driver takes an int: a wider number would wrap around (2^31 becoming the most urgent).
    if (priority < INT32_MIN || priority > INT32_MAX) rangeError('priority', `an integer in ${INT32_MIN}..${INT32_MAX}`, priority);
    if (typeof nonBlocking !== 'boolean') typeError('nonBlocking', 'a boolean', nonBlocking);
    try {
      return new Stream(device, new device.backend.Stream(device.native, nonBlocking ? NON_BLOCKING : 0, priority));
    } catch (error) {
      device.fail(error);
    }
  }

  /**
   * Wraps a stream created by other CUDA code (another addon, a library). rxcuda never destroys
   * a wrapped stream; `close()` only stops this object from enqueuing.
   * @param handle the CUstream, as a bigint
   * @param device the device whose primary context owns the stream
   * @throws TypeError for a bad `handle` or `device`, and on the host device, which has no
   * foreign streams; RangeError when the stream belongs to another context.
   */
  static fromHandle(handle: bigint, device: Device): Stream {
    if (typeof handle !== 'bigint' || handle <= 0n || handle >= 2n ** 64n)
      typeError('handle', 'a CUstream handle as a non-zero bigint', handle);
    if (!isInstance(device, DeviceClass)) typeError('device', 'a Device', device);
    device.checkUsable();
    return new Stream(device, new device.backend.Stream(device.native, 0, 0, handle));
  }

  /**
   * The CUstream handle, for other CUDA code. Work that rxcuda still holds in the stream's queue
   * (behind an unsettled host step) has not reached it yet: `await stream.flushed()` before
   * handing the handle over.
   */
  get handle(): bigint {
    return this.#handle;
  }

  /** True once `close()` was called; nothing more can be enqueued. */
  get closed(): boolean {
    return this.#tail !== undefined;
  }

  /**
   * @internal Whether work given now goes straight to the driver (nothing queued, nothing paused,
   * not capturing).
   */
  get direct(): boolean {
    return this.#capture === undefined && this.#queue.direct;
  }

  /** @internal What the stream's work is recorded into while it captures (see {@link capture}). */
  get capturing(): Recorder | undefined {
    return this.#capture;
  }

  /**
   * @internal Records the stream's work into `recorder` until the returned function is called
   * (the `replay` operator's recording of one value).
   * @throws GraphError (`capturing`) while the stream captures.
   */
  recordInto(recorder: Recorder): () => void {
    if (this.#capture) throw new GraphError('capturing', 'The stream is already capturing: end that capture first');
    this.#capture = recorder;
    return () => {
      if (this.#capture === recorder) this.#capture = undefined;
    };
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
   * {@link handle} meanwhile goes to the device as usual, as does rxcuda's own bookkeeping.
   * @param fn called with this stream; may be async.
   * @returns the captured graph, which the caller closes.
   * @throws TypeError for a non-function or a closed stream; GraphError (`capturing`) when the
   * stream is already capturing, (`nested`) when called inside another capture's function.
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
    this.checkOpen();
    if (this.#capture) throw new GraphError('capturing', 'The stream is already capturing: end that capture first');
    checkNotNested();
    const capture = (this.#capture = new Capture(this.device));
    return runCapture(capture, () => fn(this), () => (this.#capture = undefined));
  }

  /** @internal Commands ever given to the stream (a completion point compares two readings). */
  get enqueued(): number {
    return this.#enqueued;
  }

  /**
   * @internal Counts a launch that went straight to the driver without {@link run} (the launch
   * fast path), so that completion points see it as work enqueued after them.
   */
  counted(): void {
    this.#enqueued++;
  }

  /** @internal Throws unless work can be enqueued on this stream. */
  checkOpen(): void {
    if (this.#tail) throw new TypeError('Expected `stream` to be open, got a closed Stream');
    this.device.checkUsable();
  }

  /**
   * Allocates `length` elements of `dtype` from the device's memory pool, ordered on this
   * stream: the memory can be used by work enqueued on this stream from now on. Returns at once,
   * also while work waits in the stream's queue.
   * @throws TypeError for an unknown `dtype`, RangeError for a bad `length`.
   */
  alloc<D extends DType>(dtype: D, length: number): DeviceArray<D> {
    checkDType('dtype', dtype);
    checkCount('length', length);
    this.checkOpen();
    this.#capture?.interrupt('An allocation');
    try {
      return DeviceArray.allocate(this, dtype, length);
    } catch (error) {
      this.device.fail(error);
    }
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
   */
  copy<D extends DType>(dst: Memory<D>, src: Memory<D>): void {
    checkCopy(dst, src, this.device, true);
    this.checkOpen();
    if (this.#capture) return this.#capture.copy(dst, src);
    const [to, from, bytes] = [dst.ptr, src.ptr, dst.byteLength];
    this.run(betweenDevices(dst, src) ? peerCopy(this, dst, src) : () => this.native.copy(to, from, bytes));
    dst.allocation.use(this);
    src.allocation.use(this);
  }

  /**
   * Sets every element of `dst` to `value`, in stream order.
   * @throws TypeError/RangeError when `value` does not fit `dst.dtype`.
   */
  fill<D extends DType>(dst: Memory<D>, value: D extends 'i64' | 'u64' ? number | bigint : number): void {
    checkMemoryOf('dst', dst, this.device);
    checkScalar('value', dst.dtype, value);
    this.checkOpen();
    if (this.#capture) return this.#capture.fill(dst, value);
    const [low, high] = scalarBits(dst.dtype, value);
    const [ptr, size, length] = [dst.ptr, DTYPES[dst.dtype].size, dst.length];
    if (length > 0) this.run(() => this.native.fill(ptr, size, length, low, high));
    dst.allocation.use(this);
  }

  /**
   * Launches `kernel` with a grid, a block and arguments that match its signature. Everything is
   * checked before anything is enqueued; the launch itself is one native call.
   * @throws TypeError/RangeError naming the bad argument; CudaError when the driver refuses.
   */
  launch<S extends Signature>(kernel: Kernel<S>, config: LaunchConfig | LaunchOptions, args: KernelArgs<S>): void {
    if (!isInstance(kernel, Kernel)) typeError('kernel', 'a Kernel', kernel);
    (kernel as Kernel<S>).launchOn(this, config, args);
  }

  /**
   * Records an event at this point of the stream. Waits made for it from now on (on any stream)
   * wait for this record, also while it waits in this stream's queue.
   * @param options `timing: true` to use the event for elapsed-time measurements (default false),
   * or an event of this device to record again.
   * @throws TypeError for a closed event; RangeError for an event of another device.
   */
  record(options?: EventOptions | Event): Event {
    const given = isInstance(options, Event) ? options : undefined;
    if (given) {
      if (given.closed) typeError('event', 'an open Event', received('a closed Event'));
      if (given.device !== this.device) rangeError('event', `an event of ${this.device}`, given);
    }
    this.checkOpen();
    const event = given ?? Event.create(this.device, options as EventOptions | undefined);
    if (!this.#capture?.record(event)) this.run(event.recordCommand(this));
    return event;
  }

  /**
   * Makes work enqueued on this stream from now on wait until `event` has completed (work of
   * another stream can be ordered after this one this way). Returns at once; when the event's
   * record still waits in its stream's queue, this stream's later work waits for it in rxcuda's
   * queue, never on the device. The event may be of another device (of the same backend): its
   * work is then ordered before this device's.
   * @throws TypeError for a closed event or one that is not an Event; RangeError for an event of
   * another backend.
   */
  wait(event: Event): void {
    if (!isInstance(event, Event)) typeError('event', 'an Event', event);
    if (event.device.backend !== this.device.backend) rangeError('event', `an event of a ${this.device.kind} device`, received(`an event of ${event.device}`));
    if (event.closed) typeError('event', 'an open Event', received('a closed Event'));
    this.checkOpen();
    if (this.#capture?.wait(event)) return;
    this.waitInternal(event);
  }

  /** @internal {@link wait} without the checks, for rxcuda's own streams (closed ones too). */
  waitInternal(event: Event): void {
    this.run(event.waitCommand(this, (error) => this.#queuedFailure(error)));
  }

  /**
   * True when all work enqueued so far has completed, work in the stream's queue included (and
   * host steps settled). Never waits.
   */
  query(): boolean {
    this.checkOpen();
    this.#capture?.interrupt('A query of the stream');
    if (!this.#queue.direct) return false;
    try {
      return this.native.query();
    } catch (error) {
      this.device.fail(error);
    }
  }

  /**
   * Resolves once nothing of this stream waits in rxcuda's queue: every host step enqueued so far
   * has settled and the work behind them has gone to the driver (it may still be running). Await
   * it before other CUDA code enqueues on {@link handle}, so that its work follows all of this
   * stream's.
   */
  flushed(): Promise<void> {
    return this.#queue.flushed();
  }

  /**
   * Runs `fn` on the main thread when the stream reaches this point, and holds the stream until
   * it settles: device work enqueued after it waits for it, also when `fn` is async (until its
   * Promise settles). That work waits in the stream's queue in rxcuda and goes to the driver, in
   * order, when `fn` settles: the device never waits for JavaScript, so any number of streams may
   * hold any number of steps, and this never blocks.
   *
   * `fn` must not wait for device work of its own stream enqueued after it (that work waits for
   * `fn`: a deadlock). A step that throws or rejects is reported through the stream's `error`
   * event (a process warning with code `RXCUDA_STEP_FAILED` when nobody listens) and the stream
   * goes on.
   * @param options `userData`: bytes copied now; `fn` receives the copy. `timeout`: milliseconds
   * `fn` may take once started, after which the stream goes on without it and a
   * `HostStepTimeoutError` goes to the `error` event (see {@link HostLaunchOptions.timeout}).
   * @throws TypeError for a non-function or unreadable `userData`, RangeError for a bad `timeout`; CudaError
   * (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) on a stream under graph capture. Nothing is enqueued
   * when it throws.
   */
  hostLaunch<D extends UserData = ArrayBuffer>(
    fn: (userData: D | undefined) => unknown,
    options: HostLaunchOptions<D> = {},
  ): void {
    if (typeof fn !== 'function') typeError('fn', 'a function', fn);
    checkOptions('options', options);
    const data = copyUserData(options.userData);
    const timeout = checkTimeout(options.timeout);
    this.checkOpen();
    if (this.#capture?.step(() => fn(data), nameOf(fn), timeout)) return;
    if (!this.#queue.direct) checkNotCapturing(this, 'cuStreamAddCallback');
    this.run(hostStep(this, () => fn(data), { kind: 'hostLaunch', name: nameOf(fn) }, timeout));
  }

  /**
   * Calls `fn` on the main thread once the work enqueued so far has finished, without holding
   * the stream (later work does not wait for `fn`). `fn` gets the CudaError that stopped the
   * stream, if one did. Failures of `fn` are reported like those of host steps.
   * @throws TypeError for a non-function `fn` or a closed stream; GraphError (`forbidden`) inside
   * {@link capture}, which it ends; CudaError (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) on a stream
   * that other code captures.
   */
  onDone(fn: (error: CudaError | undefined) => unknown): void {
    if (typeof fn !== 'function') typeError('fn', 'a function', fn);
    this.#onDone(fn, notified(this));
  }

  /**
   * @internal {@link onDone} for a pipeline's values (see LanePool): on a CUDA stream, with `spin`
   * > 0 watched by the native watcher through an event for up to `spin` microseconds, then through
   * a completion point behind that event; with 0, a notification on the stream's notifier, so
   * that the lane goes on with its next value without waiting for the host callback.
   */
  onDoneWatched(fn: (error: CudaError | undefined) => unknown, spin: number): void {
    const watched = spin > 0 && this.device.kind === 'cuda';
    this.#onDone(fn, watched ? (settle) => this.#spins.watchEvent(spin, settle) : notified(this, true));
  }

  #onDone(fn: (error: CudaError | undefined) => unknown, watch: DoneWatch): void {
    this.checkOpen();
    this.#capture?.interrupt('onDone (a wait for the stream)');
    if (!this.#queue.direct) checkNotCapturing(this, 'cuStreamAddCallback');
    const mark = this.#enqueued + 1;
    this.run(doneStep(this, (error) => {
      if (!error) this.#reachedCompletionPoint(mark);
      return fn(error);
    }, watch, nameOf(fn)));
  }

  /**
   * Enqueues a native host function (a `CUhostFn` from compiled code) with its user-data pointer,
   * as they are. It runs on a driver thread, not in JavaScript, and must not call CUDA. Memory
   * passed as `userData` stays allocated until the function has run.
   * @throws TypeError for a null or non-bigint function pointer.
   */
  launchHostFunction(fn: bigint, userData: bigint | Memory = 0n): void {
    if (typeof fn !== 'bigint' || fn <= 0n || fn >= 2n ** 64n) typeError('fn', 'a CUhostFn pointer as a non-zero bigint', fn);
    const memory = isInstance<Memory>(userData, Memory) ? userData : undefined;
    if (memory) checkMemoryOf('userData', memory, this.device);
    else if (typeof userData !== 'bigint' || userData < 0n || userData >= 2n ** 64n)
      typeError('userData', 'a pointer as a bigint, or memory', userData);
    this.checkOpen();
    if (this.#capture) return this.#capture.hostFunction(fn, memory ?? (userData as bigint));
    const data = memory ? memory.ptr : (userData as bigint);
    this.run(() => this.native.hostFunction(fn, data));
    memory?.allocation.use(this);
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
   * @throws (synchronously) TypeError or RangeError for bad options, TypeError for a closed
   * stream, GraphError (`forbidden`) inside {@link capture}, which it ends; the Promise rejects
   * with the CudaError that stopped the stream or broke its device.
   */
  synchronized(options: { readonly spin?: number } = {}): Promise<void> {
    checkOptions('options', options);
    const { spin = 0 } = options;
    checkSpin('spin', spin);
    this.checkOpen();
    this.#capture?.interrupt('synchronized (a wait for the stream)');
    return new Promise((resolve, reject) => {
      const mark = this.#enqueued + 1;
      const settle = (status: number, error?: unknown) => {
        if (status !== 0) return reject(error ?? this.statusError(status));
        resolve();
        this.#reachedCompletionPoint(mark);
      };
      this.run(spin > 0 ? this.#spins.command(spin, settle) : notification(this, settle));
    });
  }

  /** Emits `idle` if nothing was enqueued since the completion point that was command number `mark`. */
  #reachedCompletionPoint(mark: number): void {
    if (this.#enqueued === mark && this.listenerCount('idle') > 0) this.emit('idle');
  }

  /**
   * @internal Calls `done(status)` on the main thread when the work enqueued so far has finished,
   * queued work included. Works on closed streams too (rxcuda's own bookkeeping uses it after a
   * close), through a completion point behind the stream's last work.
   */
  notify(done: (status: number, error?: unknown) => void): void {
    if (this.#tail) this.device.completionPoints.after([this.#tail], undefined, done);
    else this.run(notification(this, done));
  }

  /**
   * @internal Makes this stream's later work wait for all work given to `other` so far (queued
   * work included; for a closed stream, the event it recorded last of all).
   */
  waitForWorkOf(other: Stream): void {
    if (other.#tail) return this.waitInternal(other.#tail);
    const marker = Event.create(other.device);
    other.run(marker.recordCommand(other));
    this.waitInternal(marker);
    marker.close(); // the queued wait keeps its native event
  }

  /**
   * @internal An event behind the work this stream has handed to the driver so far, recorded now
   * past the stream's queue (work still queued is not on the device, and is not waited for); a
   * closed stream gives the event it recorded last of all.
   */
  driverMarker(): Event {
    if (this.#tail) return this.#tail;
    const marker = Event.create(this.device);
    marker.recordCommand(this)();
    return marker;
  }

  /**
   * @internal Gives `command` to the stream's queue: submitted now when nothing waits there
   * (a driver failure then reaches the caller, sticky ones recorded on the device), else in turn.
   */
  run(command: Command): void {
    this.#capture?.beforeRun();
    this.#enqueued++;
    try {
      this.#queue.run(this.#queue.direct ? command : routedCommand(this, command));
    } catch (error) {
      this.device.fail(error);
    }
  }

  /** @internal Holds back the stream's later work until `pause` resumes it (a CPU kernel's step). */
  pause(pause: Pause): void {
    this.#capture?.beforeRun();
    this.#queue.pause(pause);
  }

  /**
   * Stops enqueuing and releases the stream; work already enqueued (queued work included) still
   * runs to completion. Idempotent. A stream from {@link Stream.fromHandle} is left to its owner.
   */
  close(): void {
    if (this.#tail) return;
    this.#capture?.interrupt('Closing the stream');
    this.device.openStreams.delete(this.#open);
    const tail = (this.#tail = Event.create(this.device));
    try {
      this.#queue.run(tail.recordCommand(this));
      this.#queue.run(() => this.native.destroy()); // a foreign stream itself is left to its owner
    } catch {
      // A broken context (a sticky error): nothing runs on it any more anyway.
    }
    this.#spins.close();
    letStepTimersGo(this);
  }

  /** The same as `close()`, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }

  /** A queued command failed when it went to the driver: its caller has returned long since. */
  #queuedFailure(error: unknown): void {
    const broken = this.device.poisoned;
    this.device.recordFailure(error);
    // Once the context is broken, every queued command fails with its error: say it once.
    if (broken && error instanceof CudaError && error.code === broken.code) return;
    reportStepError(this, error, { kind: 'enqueue', name: error instanceof CudaError ? error.call : 'enqueue' });
  }

  /** @internal The CudaError for a failed stream status (the device's sticky error if it is one). */
  statusError(status: number): CudaError {
    const sticky = this.device.poisoned;
    if (sticky && sticky.code === status) return sticky;
    const { name, message } = addon.describeError(status);
    const error = new CudaError(status, name, 'stream', `work enqueued on the stream failed: ${name} (${message})`);
    this.device.recordFailure(error);
    return error;
  }
}
