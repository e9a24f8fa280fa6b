// What a stream's work goes into instead of the driver while it records: a capture into a graph,
// or the `replay` operator's recording of one value (graphs/ implements both). Declared here, where
// the stream hands its work over. Kernel launches and library calls are work this folder cannot
// name: graphs/ declares an interface for each, which every recorder implements (graphs/capture.ts's
// GraphRecorder, the one kind a lane holds):
//   graphs/node-work.ts    LaunchRecorder   kernel(kernel, config, args, block): a launch
//   graphs/node-work.ts    LibraryRecorder  library(call, memory): a cuBLAS or cuFFT call
import type { MemoryView } from '../memory/memory-view.js';
import type { NativeEvent } from '../native/types.js';
import type { EngineRecorder } from '../queue/stream-engine.js';

/** An event as a recording takes it: the native event its records and waits use now, held. */
export interface RecordedEvent {
  /** The native event, kept (past the event's close too) until the returned function releases it. */
  holdNative(record: boolean): readonly [NativeEvent, () => void];
}

/**
 * What a recording stream gives its work to. `record`, `wait` and `step` answer whether they
 * recorded (else the stream does the work itself); `interrupt` is asked before work a graph cannot
 * hold (a capture refuses it, a value's recording launches what it holds so far); `allocation`
 * before an allocation on the stream; `beforeRun` before rxcuda's own commands.
 */
export interface Recorder extends EngineRecorder {
  copy(dst: MemoryView, src: MemoryView): void;
  fill(dst: MemoryView, value: number | bigint): void;
  hostFunction(fn: bigint, userData: bigint | MemoryView): void;
  record(event: RecordedEvent): boolean;
  wait(event: RecordedEvent): boolean;
  step(run: () => unknown, name: string, timeout: number | undefined): boolean;
  interrupt(what: string): void;
  /**
   * An allocation on the stream is about to be made: a capture refuses it (its graph would use
   * memory allocated outside it); a value's recording goes on, since stream-ordered memory is
   * usable at once by the work given to the stream after it, which the recording launches later.
   */
  allocation(): void;
}
