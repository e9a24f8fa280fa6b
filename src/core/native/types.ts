// The binding's surface, as TypeScript sees it: the native classes of both backends and the
// addon's functions. Declared once here; the addon checks its own side at load.
import type { DeviceProperties, DriverInfo, KernelAttributes } from './facts.js';
import type { LaunchBlockLayout } from './launch-block.js';

export type { DeviceProperties, DriverInfo, KernelAttributes } from './facts.js';
/** What the native Device class offers. */
export interface NativeDevice {
  properties(): DeviceProperties;
  /**
   * Free and total memory in bytes: the device's (cuMemGetInfo), or the machine's RAM on the
   * host backend.
   */
  memoryInfo(): {
    /** Free memory in bytes. */
    free: number;
    /** Total memory in bytes. */
    total: number;
  };
  /** Enables this device's direct access to `peer`'s memory; false where the hardware cannot. */
  enablePeerAccess(peer: NativeDevice): boolean;
  /**
   * The host backend only: the device broke with the sticky error `code`. What its streams run
   * from then on skips its effect, and their notifications report `code`, as on a GPU whose
   * context broke.
   */
  poison?(code: number): void;
}

/** notify() flag: enqueue nothing, and answer false, on a stream under graph capture. */
export const NOTIFY_REFUSE_CAPTURE = 2;
/** notify() flag: the callback behind an event, on the stream's notifier, not on the stream (CUDA). */
export const NOTIFY_OFF_STREAM = 4;
/**
 * notify()'s flags as TypeScript passes them; native/src/runtime/device-thread.hpp declares them,
 * and loading the addon checks these against its `notifyFlags`.
 */
export const NOTIFY_FLAGS = Object.freeze({ refuseCapture: NOTIFY_REFUSE_CAPTURE, offStream: NOTIFY_OFF_STREAM });

/** An event's flag: CU_EVENT_DISABLE_TIMING. */
export const DISABLE_TIMING = 0x2;

export interface NativeStream {
  handle(): bigint;
  destroy(): void;
  query(): boolean;
  priority(): number;
  flags(): number;
  capturing(): boolean;
  record(event: NativeEvent): void;
  /**
   * CUDA streams: records `event` and has the addon's watcher query it (one call); `id` comes
   * back through the completion queue with 0 once it has completed, or -1 (given up: past
   * `microseconds`, or a failed query). False, with nothing recorded and `id` not taken, while the
   * stream captures a graph; a failed record throws, and `id` is not taken either.
   */
  watchRecorded?(id: number, event: NativeEvent, microseconds: number): boolean;
  /**
   * CUDA streams: the device writes `value` to the word at `address` (pinned) when the stream gets
   * here, and the addon's watcher reads the word (one call, no driver call of the watcher's); `id`
   * comes back as with {@link watchRecorded}, which this is otherwise like.
   */
  watchWritten?(id: number, address: bigint, value: number, microseconds: number): boolean;
  waitEvent(event: NativeEvent): void;
  /** Enqueues the notification for `id`; false (nothing enqueued) when refused under capture. */
  notify(id: number, flags?: number): boolean;
  hostFunction(fn: bigint, userData: bigint): void;
  writeValue(address: bigint, value: number): void;
  alloc(bytes: number): bigint;
  free(ptr: bigint): void;
  copy(dst: bigint, src: bigint, bytes: number): void;
  /** A copy between memory of two devices (a peer copy, staged by the driver without peer access). */
  copyPeer(dst: bigint, dstDevice: NativeDevice, src: bigint, srcDevice: NativeDevice, bytes: number): void;
  fill(ptr: bigint, elementSize: number, count: number, low: number, high: number): void;
  /**
   * `id` comes back through the completion queue once everything given to the stream before it is
   * in the driver's hands (past its device thread), with 0, or with the CUresult of the failed
   * submission that stopped the stream's work. False, with `id` not taken, for a stream whose
   * commands are in the driver's hands once given (a foreign stream, a host-device stream).
   */
  flushMark(id: number): boolean;
  /**
   * @internal For tests: the next device work given to the stream (a launch, copy, fill, record,
   * wait, word write or host function; on the host device not a launch) fails at submission with
   * `code` instead of reaching the driver, as a driver failure would. False for a foreign stream,
   * whose commands are submitted at once.
   */
  failNext(code: number): boolean;
}

export interface NativeEvent {
  query(): boolean;
  elapsed(end: NativeEvent): number;
  destroy(): void;
}

export interface NativeModule {
  /** Unloads on a worker thread (the driver's unload waits for the whole device). */
  unload(): void;
}

/**
 * Launches with what the bound block holds; the host backend also reads the arguments given and
 * the launch's context (a LaunchContext, which CPU kernels always get), and returns the pause of
 * the CPU kernel's host step.
 */
export type KernelLauncher = (stream: unknown, config: unknown, args: readonly unknown[], context?: unknown) => ((resume: () => void) => void) | void;

export interface NativeKernel {
  handle(): bigint;
  /** Each parameter's size (and offset, or alignment), or null where it cannot be known. */
  paramInfo(): readonly { readonly size: number; readonly offset?: number; readonly align?: number }[] | null;
  attributes(): KernelAttributes;
  setAttribute(attribute: number, value: number): void;
  occupancy(blockSize: number, sharedMem: number): number;
  suggestBlockSize(sharedMem: number, blockLimit: number): { minGridSize: number; blockSize: number };
  /** Binds the argument block; returns the function that launches with what it holds. */
  bind(block: ArrayBuffer, offsets: Uint32Array): KernelLauncher;
}

/** A CUDA graph being built; nodes are named by the order they were added in. */
export interface NativeGraph {
  addKernel(kernel: NativeKernel, block: Uint8Array, deps: Uint32Array): number;
  addCopy(dst: bigint, src: bigint, bytes: number, deps: Uint32Array): number;
  addFill(ptr: bigint, elementSize: number, count: number, low: number, high: number, deps: Uint32Array): number;
  addHost(fn: bigint, userData: bigint, deps: Uint32Array): number;
  addEvent(event: NativeEvent, wait: boolean, deps: Uint32Array): number;
  addEmpty(deps: Uint32Array): number;
  /**
   * Makes graph `graphId` (0: the root; a conditional node's body: bodyGraph) the one the add
   * methods add to. Node indices, deps included, stay one sequence across all graphs.
   * @throws RangeError for no such graph.
   */
  target(graphId: number): void;
  /**
   * A conditional handle (CUgraphConditionalHandle) for a conditional node in graph `graphId` or
   * in one of its bodies; `assignDefault`: `defaultValue` is set at the start of every launch.
   * @throws CudaError CUDA_ERROR_NOT_SUPPORTED with a driver older than CUDA 12.4.
   */
  createCondition(graphId: number, defaultValue: number, assignDefault: boolean): bigint;
  /**
   * Adds a conditional node to the target graph, with `size` body graphs (type 0: IF, size 1 or 2
   * for IF/ELSE; 1: WHILE, size 1; 2: SWITCH, size >= 1); returns its index.
   * @throws CudaError CUDA_ERROR_NOT_SUPPORTED with a driver older than CUDA 12.4 (12.8 for IF/ELSE
   * and SWITCH).
   */
  addConditional(handle: bigint, type: number, size: number, deps: Uint32Array): number;
  /**
   * The graphId of body `which` of conditional node `node`.
   * @throws RangeError for another node or no such body.
   */
  bodyGraph(node: number, which: number): number;
  destroy(): void;
}

/** An executable instantiated from a NativeGraph; updates name the graph's nodes. */
export interface NativeGraphExec {
  launch(stream: NativeStream): void;
  /** The launch as a function bound to the executable, given the stream handle's 32-bit halves. */
  bind(): (lo: number, hi: number) => void;
  setKernel(node: number, kernel: NativeKernel, block: Uint8Array): void;
  setCopy(node: number, dst: bigint, src: bigint, bytes: number): void;
  setFill(node: number, ptr: bigint, elementSize: number, count: number, low: number, high: number): void;
  destroy(): void;
}

export interface CompileOutput {
  ptx: string;
  cubin: Uint8Array | null;
  log: string;
  lowered: string[];
}

/** The native classes of one backend: CUDA, or the host (CPU) reference backend. */
export interface Backend {
  readonly kind: 'cuda' | 'host';
  Device: new (ordinal: number) => NativeDevice;
  Stream: new (device: NativeDevice, flags: number, priority: number, handle?: bigint) => NativeStream;
  Event: new (device: NativeDevice, flags: number) => NativeEvent;
  allocHost(device: NativeDevice, bytes: number): { ptr: bigint; buffer: ArrayBuffer };
  /**
   * Frees pinned memory allocated by allocHost (on a worker thread where the driver's free waits
   * for the device); detach its buffer first (detachBuffer).
   */
  freeHost(device: NativeDevice, ptr: bigint): void;
  /** Page-locks `bytes` at `ptr`, memory the user allocated (the host backend only keeps the range). */
  registerHost(device: NativeDevice, ptr: bigint, bytes: number): void;
  /** Unlocks memory registerHost locked, on a worker thread where the driver's call may wait. */
  unregisterHost(device: NativeDevice, ptr: bigint): void;
  /**
   * An ArrayBuffer over `bytes` of pinned memory the backend handed out (no finalizer): a reused
   * block's, or a CPU kernel's view of device memory on the host backend.
   */
  viewHost(ptr: bigint, bytes: number): ArrayBuffer;
}

export interface Addon {
  driverInfo(): DriverInfo;
  describeError(code: number): { name: string; message: string };
  /**
   * Sends id through the completion queue when the word at address reaches value (-1: gave up).
   * The main thread looks at the word too, so a seen write does not wake it.
   */
  watch(id: number, address: bigint, value: number, microseconds: number): void;
  /**
   * Fixes the watcher's busy pause between two passes over events in which none completed, in
   * nanoseconds; a negative value: the default, which follows how long the events take.
   */
  setWatcherPause(nanoseconds: number): void;
  Device: new (ordinal: number) => NativeDevice;
  Stream: new (device: NativeDevice, flags: number, priority: number, handle?: bigint) => NativeStream;
  Event: new (device: NativeDevice, flags: number) => NativeEvent;
  /**
   * Loads a module image on a worker thread (the driver's load waits for the device's work); with
   * `deviceRuntime`, the path of libcudadevrt.a, links the image (a cubin or NUL-terminated PTX)
   * with it through the driver's linker first, and a failed link rejects with a CudaError whose
   * message carries the linker's log.
   */
  loadModule(device: NativeDevice, image: Uint8Array, deviceRuntime?: string): Promise<bigint>;
  /** The CUDA device runtime, libcudadevrt.a, in the first of {@link deviceRuntimePlaces} that has it; null where none does. */
  deviceRuntimeLibrary(): string | null;
  /**
   * The folders libcudadevrt.a is looked for in, in order: NVRTC's (as loaded, and its real one),
   * their ../lib64 and ../lib, $CUDA_PATH/lib64, /usr/local/cuda/lib64, and /usr/local/cuda's targets.
   */
  deviceRuntimePlaces(): string[];
  /** Wraps a module handle that loadModule gave. */
  Module: new (device: NativeDevice, handle: bigint) => NativeModule;
  Kernel: new (module: NativeModule, name: string) => NativeKernel;
  Graph: new (device: NativeDevice) => NativeGraph;
  GraphExec: new (graph: NativeGraph) => NativeGraphExec;
  allocHost(device: NativeDevice, bytes: number): { ptr: bigint; buffer: ArrayBuffer };
  freeHost(device: NativeDevice, ptr: bigint): void;
  registerHost(device: NativeDevice, ptr: bigint, bytes: number): void;
  unregisterHost(device: NativeDevice, ptr: bigint): void;
  /**
   * Copies `bytes` from `src` to `dst` (addresses or TypedArrays) on native threads, in parallel
   * chunks; `id` comes back through the completion queue when they are copied. The caller keeps
   * both alive until then.
   */
  copyHost(id: number, dst: bigint | ArrayBufferView, src: bigint | ArrayBufferView, bytes: number): void;
  /** The address of a TypedArray's first byte. */
  hostAddress(view: ArrayBufferView): bigint;
  /** Threads that copyHost copies on (starts them). */
  copyThreads(): number;
  compile(source: string, name: string, options: string[], expressions: string[]): Promise<CompileOutput>;
  HostDevice: Backend['Device'];
  HostStream: Backend['Stream'];
  HostEvent: Backend['Event'];
  hostAllocHost: Backend['allocHost'];
  hostFreeHost: Backend['freeHost'];
  /** An ArrayBuffer over memory the addon handed out (no finalizer): for CPU kernels, reused pinned blocks. */
  hostView(ptr: bigint, bytes: number): ArrayBuffer;
  /** Detaches an ArrayBuffer over memory the addon handed out, so that its views empty. */
  detachBuffer(buffer: ArrayBuffer): void;
  /**
   * @internal For tests: this environment's completions not drained yet, and the completion
   * records and completion queues (`records`, `roads`) alive in the whole process (a
   * terminated worker's are freed later, by the threads that finish its work).
   */
  completionCounts(): { pending: number; records: number; roads: number };
  /** The launch block's layout as the addon reads it (frozen); checked against TypeScript's at load. */
  readonly launchBlockLayout: LaunchBlockLayout;
  /** notify()'s flags as the addon reads them (checked at load against {@link NOTIFY_FLAGS}). */
  readonly notifyFlags: { readonly refuseCapture: number; readonly offStream: number };
  /** Failed submissions of the device threads (and of host streams) not yet told, oldest first. */
  takeSubmitFailures(): { handle: bigint; code: number; call: string }[];
  /**
   * @internal For tests and benchmarks: the environment's device threads, and how many times a
   * main-thread driver call waited for one to submit what it held (none on a hot path).
   */
  submissionCounts(): { threads: number; waits: number };
}
