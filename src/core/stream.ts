// Streams: ordered lanes of device work. Every method enqueues and returns at once; completion
// comes back as a Promise resolved from the completion road, never by blocking or polling.
import { EventEmitter } from 'eventemitter3';
import { addon, NOTIFY_REFUSE_CAPTURE, type NativeEvent, type NativeStream } from './native.js';
import { CudaError, checkCount, checkOptions, rangeError, typeError, received } from './errors.js';
import { DTYPES, checkDType, type DType } from './dtype.js';
import { DeviceArray, Memory } from './memory.js';
import { checkScalar, scalarBits } from './scalar.js';
import { cancelCompletion, expectCompletion, onCompletion, reserveCompletion } from './completions.js';
import { DISABLE_TIMING, Event, type EventOptions } from './event.js';
import type { Device } from './device.js';
import type { Kernel, KernelArgs, Signature } from './kernel.js';
import type { LaunchConfig, LaunchOptions } from './launch-config.js';
import { Backlog } from './backlog.js';
import { captureRefused, enqueueHostStep, enqueueNotification, Gate, type HostLaunchOptions, type HostStepContext, type UserData } from './host-steps.js';

/** Events a stream emits. Use RxJS's `fromEvent(stream, 'idle')` to observe them as streams. */
export interface StreamEvents {
  /** A host step or notification threw or rejected; the stream went on. */
  error: (error: unknown, context: HostStepContext) => void;
  /**
   * All work enqueued so far has finished, as seen at a completion point (a `synchronized()`,
   * `onDone` or pipeline value) with nothing enqueued after it. A held host step is not such a
   * point: the stream waits at it.
   */
  idle: () => void;
}

/** Options for {@link Device.createStream}. */
export interface StreamOptions {
  /**
   * Scheduling priority; lower numbers are more urgent (CUDA's range is typically -5..0).
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

/**
 * An ordered lane of device work on one device. Create with {@link Device.createStream}.
 * Emits `error` when a host step fails (see {@link StreamEvents}).
 */
export class Stream extends EventEmitter<StreamEvents> {
  /**
   * @internal Whether the native watcher leaves a seen write to the event loop's own look
   * instead of waking the main thread for it (false: it wakes it). bench/completion compares.
   */
  static watchQuietly = true;

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
  /** @internal Work queued behind unfinished host steps. */
  readonly backlog: Backlog;
  #tail: NativeEvent | undefined;
  #gate: Gate | undefined;
  #signal: Gate | undefined;
  /** The fallbacks of spinning waits whose watcher has neither seen the signal nor given up. */
  readonly #watching = new Set<() => void>();
  /** Fallbacks enqueued and not yet settled: the notifier stream waits on the signal word. */
  #fallingBack = 0;

  private constructor(device: Device, native: NativeStream) {
    super();
    this.backlog = new Backlog(device.backend.queueLimit);
    this.device = device;
    this.native = native;
    this.#handle = native.handle();
    this.lo = Number(this.#handle & 0xffff_ffffn);
    this.hi = Number(this.#handle >> 32n);
    this.priority = native.priority();
    this.nonBlocking = (native.flags() & NON_BLOCKING) !== 0;
  }

  /** @internal Use {@link Device.createStream}. */
  static create(device: Device, options: StreamOptions = {}): Stream {
    checkOptions('options', options);
    const { priority = 0, nonBlocking = false } = options;
    if (!Number.isInteger(priority)) typeError('priority', 'an integer', priority);
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
   * @throws RangeError when the stream belongs to another context.
   */
  static fromHandle(handle: bigint, device: Device): Stream {
    if (typeof handle !== 'bigint' || handle <= 0n || handle >= 2n ** 64n)
      typeError('handle', 'a CUstream handle as a non-zero bigint', handle);
    device.checkUsable();
    return new Stream(device, new device.backend.Stream(device.native, 0, 0, handle));
  }

  /** The CUstream handle, for other CUDA code. */
  get handle(): bigint {
    return this.#handle;
  }

  /** True once `close()` was called; nothing more can be enqueued. */
  get closed(): boolean {
    return this.#tail !== undefined;
  }

  /** @internal Throws unless work can be enqueued on this stream. */
  checkOpen(): void {
    if (this.#tail) throw new TypeError('Expected `stream` to be open, got a closed Stream');
    this.device.checkUsable();
  }

  /**
   * Allocates `length` elements of `dtype` from the device's memory pool, ordered on this
   * stream: the memory can be used by work enqueued on this stream from now on.
   * @throws TypeError for an unknown `dtype`, RangeError for a bad `length`.
   */
  alloc<D extends DType>(dtype: D, length: number): DeviceArray<D> {
    checkDType('dtype', dtype);
    checkCount('length', length);
    this.checkOpen();
    try {
      return DeviceArray.allocate(this, dtype, length);
    } catch (error) {
      this.device.fail(error);
    }
  }

  /**
   * Copies all of `src` into `dst` (host→device, device→host or device→device), in stream order.
   * Use `subarray` for parts of arrays.
   * @throws TypeError for non-memory or closed arguments, RangeError for different sizes or memory
   * of another device. Nothing is enqueued when it throws.
   */
  copy(dst: Memory, src: Memory): void {
    this.#checkMemory('dst', dst);
    this.#checkMemory('src', src);
    if (src.byteLength !== dst.byteLength)
      rangeError('src', `${dst.byteLength} bytes, as \`dst\` is`, received(`${src.byteLength} bytes`));
    this.checkOpen();
    this.#enqueue(1, () => this.native.copy(dst.ptr, src.ptr, dst.byteLength));
    dst.allocation.use(this);
    src.allocation.use(this);
  }

  /**
   * Sets every element of `dst` to `value`, in stream order.
   * @throws TypeError/RangeError when `value` does not fit `dst.dtype`.
   */
  fill<D extends DType>(dst: Memory<D>, value: D extends 'i64' | 'u64' ? number | bigint : number): void {
    this.#checkMemory('dst', dst);
    checkScalar('value', dst.dtype, value);
    this.checkOpen();
    const [low, high] = scalarBits(dst.dtype, value);
    if (dst.length > 0) this.#enqueue(2, () => this.native.fill(dst.ptr, DTYPES[dst.dtype].size, dst.length, low, high));
    dst.allocation.use(this);
  }

  /**
   * Launches `kernel` with a grid, a block and arguments that match its signature. Everything is
   * checked before anything is enqueued; the launch itself is one native call.
   * @throws TypeError/RangeError naming the bad argument; CudaError when the driver refuses.
   */
  launch<S extends Signature>(kernel: Kernel<S>, config: LaunchConfig | LaunchOptions, args: KernelArgs<S>): void {
    kernel.launchOn(this, config, args);
  }

  /**
   * Records an event at this point of the stream.
   * @param options `timing: true` to use the event for elapsed-time measurements (default false).
   */
  record(options?: EventOptions | Event): Event {
    this.checkOpen();
    const event = options instanceof Event ? options : Event.create(this.device, options);
    if (event.device !== this.device) rangeError('event', `an event of ${this.device}`, event);
    this.#enqueue(1, () => this.native.record(event.native));
    event.recordedOn(this);
    return event;
  }

  /**
   * Makes work enqueued on this stream from now on wait until `event` has completed (work of
   * another stream can be ordered after this one this way). Returns at once.
   */
  wait(event: Event): void {
    if (!(event instanceof Event)) typeError('event', 'an Event', event);
    if (event.device !== this.device) rangeError('event', `an event of ${this.device}`, event);
    if (event.closed) typeError('event', 'an open Event', received('a closed Event'));
    this.checkOpen();
    this.#enqueue(1, () => this.native.waitEvent(event.native));
  }

  /** True when all work enqueued so far has completed. Never waits. */
  query(): boolean {
    this.checkOpen();
    try {
      return this.native.query();
    } catch (error) {
      this.device.fail(error);
    }
  }

  /**
   * Runs `fn` on the main thread when the stream reaches this point, and holds the stream until
   * it settles: device work enqueued after it waits for it, also when `fn` is async (until its
   * Promise settles). The device does the waiting, on a word of pinned memory, so no thread is
   * blocked and other streams are not held.
   *
   * `fn` must not wait for device work of its own stream (that work waits for `fn`: a deadlock).
   * A step that throws or rejects is reported through the stream's `error` event (a process
   * warning when nobody listens) and the stream goes on.
   * @param options `userData`: bytes copied now; `fn` receives the copy.
   * @throws TypeError for a non-function or unreadable `userData`; CudaError
   * (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) on a stream under graph capture. Nothing is enqueued
   * when it throws.
   */
  hostLaunch<D extends UserData = ArrayBuffer>(
    fn: (userData: D | undefined) => unknown,
    options: HostLaunchOptions<D> = {},
  ): void {
    if (typeof fn !== 'function') typeError('fn', 'a function', fn);
    checkOptions('options', options);
    this.checkOpen();
    enqueueHostStep(this, () => (this.#gate ??= new Gate(this)), fn, options);
  }

  /**
   * Calls `fn` on the main thread once the work enqueued so far has finished, without holding
   * the stream (later work does not wait for `fn`). `fn` gets the CudaError that stopped the
   * stream, if one did. Failures of `fn` are reported like those of host steps.
   * @throws CudaError (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) on a stream under graph capture.
   */
  onDone(fn: (error: CudaError | undefined) => unknown): void {
    if (typeof fn !== 'function') typeError('fn', 'a function', fn);
    this.checkOpen();
    enqueueNotification(this, fn);
  }

  /**
   * Enqueues a native host function (a `CUhostFn` from compiled code) with its user-data pointer,
   * as they are. It runs on a driver thread, not in JavaScript, and must not call CUDA. Memory
   * passed as `userData` stays allocated until the function has run.
   * @throws TypeError for a null or non-bigint function pointer.
   */
  launchHostFunction(fn: bigint, userData: bigint | Memory = 0n): void {
    if (typeof fn !== 'bigint' || fn <= 0n || fn >= 2n ** 64n) typeError('fn', 'a CUhostFn pointer as a non-zero bigint', fn);
    if (userData instanceof Memory) this.#checkMemory('userData', userData);
    else if (typeof userData !== 'bigint' || userData < 0n || userData >= 2n ** 64n)
      typeError('userData', 'a pointer as a bigint, or memory', userData);
    this.checkOpen();
    this.#enqueue(1, () => this.native.hostFunction(fn, userData instanceof Memory ? userData.ptr : userData));
    if (userData instanceof Memory) userData.allocation.use(this);
  }

  /**
   * Resolves when all work enqueued so far has completed, without blocking the main thread:
   * the driver's callback wakes it. Rejects with the CudaError that stopped the stream.
   *
   * With `spin`, a native thread watches for the stream reaching this point (a word the device
   * writes to pinned memory) for up to `spin` microseconds instead, which resolves sooner and
   * spares the enqueue of the driver's callback. The cost is CPU time: the watcher keeps one core
   * busy while it watches (and 200 µs after its last watch, so that back-to-back waits find it
   * awake), and the event loop keeps turning instead of sleeping for as long, looking at the
   * word itself each turn, so that the write is taken at once (the watcher bounds the wait).
   * Past `spin` (or once the stream is closed), a notification on the stream's notifier stream,
   * behind the same write, settles the Promise, errors included.
   */
  synchronized(options: { readonly spin?: number } = {}): Promise<void> {
    checkOptions('options', options);
    const { spin = 0 } = options;
    checkCount('spin', spin);
    this.checkOpen();
    return new Promise((resolve, reject) => {
      // Called once: by the notification, or by the first of the spinning wait's roads (#watch).
      const settle = (status: number, error?: unknown) => {
        if (status === 0) resolve();
        else reject(error ?? this.statusError(status));
      };
      if (spin > 0) this.#watch(spin, settle);
      else this.notify(settle);
    });
  }

  /**
   * Enqueues a write of the next signal value and has the native watcher report it. While it
   * watches, the event loop keeps turning and looks at the word too, so whichever of the two sees
   * the write first settles the wait. If the watcher gives up, or the stream closes first, the
   * fallback is enqueued: a notification on the notifier stream once the signal has that value.
   */
  #watch(spin: number, settle: (status: number, error?: unknown) => void): void {
    const signal = (this.#signal ??= new Gate(this));
    const value = signal.next();
    this.#enqueue(1, () => this.native.writeValue(signal.address, value));
    const mark = this.backlog.total;
    let done = false;
    const reached = (status: number, error?: unknown) => {
      if (done) return;
      done = true;
      this.#watching.delete(fallBack);
      settle(status, error);
      if (status === 0) this.#reachedCompletionPoint(mark);
    };
    const fallBack = () => {
      this.#watching.delete(fallBack);
      this.#fallingBack++;
      const id = expectCompletion((status) => {
        this.#fellBack();
        reached(status);
      });
      try {
        this.native.notifyWhen(id, signal.address, value);
      } catch (error) {
        cancelCompletion(id);
        this.#fellBack();
        this.device.recordFailure(error);
        reached(-1, error);
      }
    };
    this.#watching.add(fallBack);
    // Keep the event loop turning while the watcher watches, each turn looking at the word: the
    // write is taken one turn after it lands. So the watcher does not wake the main thread for a
    // write it saw (a quiet watch: handling the wake-up would only delay the loop); it bounds the
    // wait, and its give-up does wake it, for the fallback.
    const turn = () => {
      if (!this.#watching.has(fallBack)) return;
      if (signal.reached(value)) reached(0);
      else setImmediate(turn);
    };
    setImmediate(turn);
    const id = expectCompletion((status) => {
      if (status === 0) reached(0);
      else if (this.#watching.has(fallBack)) fallBack(); // the watcher gave up
    });
    addon.watch(id, signal.address, value, spin, Stream.watchQuietly);
  }

  /** A fallback settled: the notifier stream no longer reads the signal word, which may go. */
  #fellBack(): void {
    if (--this.#fallingBack === 0 && this.closed) this.#signal?.close();
  }

  /** Emits `idle` if nothing was enqueued since the completion point at backlog total `mark`. */
  #reachedCompletionPoint(mark: number): void {
    if (this.backlog.total === mark && this.listenerCount('idle') > 0) this.emit('idle');
  }

  /**
   * @internal Calls `done(status)` on the main thread when the work enqueued so far has finished.
   * Works on closed streams too (rxcuda's own bookkeeping uses it after a close). With
   * `refuseCapture` (the driver call to name), a stream under graph capture gets nothing and the
   * capture refusal is thrown.
   */
  notify(done: (status: number) => void, refuseCapture?: string): void {
    this.backlog.admit(1);
    const mark = this.backlog.total;
    const id = reserveCompletion(); // its handler is set after the enqueue, which comes sooner
    let enqueued: boolean;
    try {
      enqueued = this.native.notify(id, refuseCapture ? NOTIFY_REFUSE_CAPTURE : 0);
    } catch (error) {
      this.device.fail(error);
    }
    if (!enqueued) {
      this.backlog.withdraw(1);
      throw captureRefused(refuseCapture!);
    }
    onCompletion(id, (status) => {
      done(status);
      if (status === 0) this.#reachedCompletionPoint(mark);
    });
  }

  /** @internal An event behind all work enqueued so far (the one recorded at close, once closed). */
  tail(): NativeEvent {
    if (this.#tail) return this.#tail;
    const event = new this.device.backend.Event(this.device.native, DISABLE_TIMING);
    this.native.record(event);
    return event;
  }

  /**
   * Stops enqueuing and releases the stream; work already enqueued still runs to completion.
   * Idempotent. A stream from {@link Stream.fromHandle} is left to its owner.
   */
  close(): void {
    if (this.#tail) return;
    try {
      this.#tail = this.tail();
    } catch {
      this.#tail = new this.device.backend.Event(this.device.native, DISABLE_TIMING); // poisoned: nothing runs anyway
    }
    for (const fallBack of this.#watching) fallBack(); // while the notifier stream is still there
    this.native.destroy(); // and its notifier stream; a foreign stream itself is left to its owner
    this.#gate?.close();
    if (this.#fallingBack === 0) this.#signal?.close(); // else once the last fallback settled
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /**
   * Counts `units` of work against the backlog, then makes the native call; a driver failure
   * is recorded on the device (when sticky) and thrown.
   */
  #enqueue(units: number, call: () => void): void {
    this.backlog.admit(units);
    try {
      call();
    } catch (error) {
      this.device.fail(error);
    }
  }

  #checkMemory(name: string, memory: Memory): void {
    if (!(memory instanceof Memory)) typeError(name, 'a DeviceArray or HostArray', memory);
    if (memory.closed) typeError(name, `open memory`, received(`a closed ${memory.constructor.name}`));
    if (memory instanceof DeviceArray && memory.device !== this.device)
      rangeError(name, `memory of ${this.device}`, received(`memory of ${memory.device}`));
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
