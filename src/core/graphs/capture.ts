// Stream capture: while a stream captures, the work it is given is recorded into a graph, in
// order, instead of going to the device; JavaScript steps end one segment of the graph and start
// the next. Work that a graph cannot hold (a wait for the stream, an allocation) ends the capture
// with a GraphError that says what it was.
import { AsyncLocalStorage } from 'node:async_hooks';
import { GraphError, elementsOf, typeError } from '../base/errors.js';
import type { Allocation } from '../memory/allocation.js';
import type { MemoryView } from '../memory/memory-view.js';
import type { RecordedEvent, Recorder } from '../device/recorder.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import type { LaunchConfig } from '../kernels/launch-config.js';
import { checkConditionArgs, checkConditionOfNode, type ConditionScope, type GraphCondition } from '../device/condition.js';
import { bodyReturnedPromise, type ConditionTest, type ConditionalType, type LoopOptions } from './conditions.js';
import { isThenable, refusal } from '../base/thenable.js';
import { copyWork, fillWork, hostFunctionWork, kernelWork } from './node-work.js';
import type { LaunchRecorder, LibraryCall, LibraryRecorder, NodeKernel, NodeWork } from './node-work.js';
import type { BuiltNode, GraphBuilder } from './graph-builder.js';

/**
 * Whether a capture's function runs in the current async context (captures do not nest). The
 * store is a flag, not the capture: async work the function started may outlive it, and must not
 * keep the graph alive.
 */
const running = new AsyncLocalStorage<{ active: boolean }>();

/**
 * What a stream records its work into (see device/recorder.ts): a capture, or the
 * `replay` operator's recording of one value. Both turn the work into graph nodes' work.
 */
export abstract class GraphRecorder implements Recorder, LaunchRecorder, LibraryRecorder {
  kernel(kernel: NodeKernel, config: LaunchConfig, args: readonly unknown[], block: Uint8Array): void {
    if (kernel.engine.takesConditions) checkConditionsRecorded(args, this.conditionScope());
    this.add(kernelWork(kernel, config, elementsOf(args), block.slice())); // a plain copy: what the graph holds
  }

  /** Where a condition given to a kernel recorded here must have been made; none but in a capture. */
  protected conditionScope(): ConditionScope | undefined {
    return undefined;
  }

  copy(dst: MemoryView, src: MemoryView): void {
    this.add(copyWork(dst, src));
  }

  fill(dst: MemoryView, value: number | bigint): void {
    this.add(fillWork(dst, value));
  }

  hostFunction(fn: bigint, userData: bigint | MemoryView): void {
    this.add(hostFunctionWork(fn, userData));
  }

  /** A library call (cuBLAS, cuFFT), checked, with the memory it uses. */
  library(call: LibraryCall, memory: readonly Allocation[]): void {
    this.add({ kind: 'library', call, memory });
  }

  /** Records a node's work made elsewhere (a conditional node a pipeline operator recorded). */
  node(work: NodeWork): void {
    this.add(work);
  }

  /** Records one operation's work. */
  protected abstract add(work: NodeWork): void;
  abstract record(event: RecordedEvent): boolean;
  abstract wait(event: RecordedEvent): boolean;
  abstract step(run: () => unknown, name: string, timeout: number | undefined): boolean;
  abstract interrupt(what: string): void;
  abstract allocation(): void;
  abstract beforeRun(): void;
}

/** A graph a capture records into, and each body of it (a public Graph is one). */
export interface CapturedGraph extends ConditionScope {
  readonly engine: GraphBuilder<BuiltNode, CapturedGraph>;
  close(): void;
}

/** Where a capture records now: the graph, or the body of a conditional node being recorded. */
interface Scope {
  readonly graph: CapturedGraph;
  /** The node captured last here since the last step: the next one depends on it. */
  last: BuiltNode | undefined;
}

/**
 * What a capturing stream records into: `graph`, made empty for it; `loadBuiltins` loads the
 * device's condition kernels, which a setter or a bounded loop recorded here needs.
 */
export class Capture<G extends CapturedGraph = CapturedGraph> extends GraphRecorder {
  readonly graph: G;
  readonly #loadBuiltins: () => Promise<unknown>;
  #scope: Scope;
  #failure: GraphError | undefined;
  /** Library calls' libraries still being made ready: the graph is handed over once they are. */
  readonly pending: Promise<unknown>[] = [];
  /**
   * Body functions that returned a Promise (refused): the capture ends once they settle, so that
   * what they give the stream meanwhile is refused too, not enqueued.
   */
  readonly strays: Promise<unknown>[] = [];

  constructor(graph: G, loadBuiltins: () => Promise<unknown>) {
    super();
    this.graph = graph;
    this.#loadBuiltins = loadBuiltins;
    this.#scope = { graph: this.graph, last: undefined };
  }

  override kernel(kernel: NodeKernel, config: LaunchConfig, args: readonly unknown[], block: Uint8Array): void {
    this.#check();
    this.#refusing(() => super.kernel(kernel, config, args, block));
  }

  protected override conditionScope(): ConditionScope {
    return this.#scope.graph;
  }

  /** A new condition of the graph, or of the body being recorded. */
  condition(initial: unknown): GraphCondition {
    this.#check();
    return this.#scope.graph.engine.newCondition(initial);
  }

  /** Records a node that sets `condition` from the first element of `memory`. */
  setCondition(condition: GraphCondition, memory: MemoryView, test: ConditionTest): void {
    this.#check();
    this.add(this.#refusing(() => this.#scope.graph.engine.setConditionWork(condition, memory, test)));
    this.pending.push(this.#loadBuiltins());
  }

  /**
   * Records a conditional node whose bodies are what `fns` give the stream (each run at once, its
   * work recorded into the body).
   */
  conditional(type: ConditionalType, condition: GraphCondition, fns: readonly (() => unknown)[], loop: LoopOptions | undefined): void {
    this.#check();
    const scope = this.#scope;
    this.#refusing(() => checkConditionOfNode(condition, scope.graph)); // before any body runs
    const bound = loop && this.#refusing(() => scope.graph.engine.loopBound(loop));
    const bodies = fns.map((fn) => {
      const body = scope.graph.engine.body();
      this.#scope = { graph: body, last: undefined };
      try {
        const result = fn();
        if (isThenable(result)) {
          this.strays.push(Promise.resolve(result).then(undefined, () => {})); // refused, not unhandled
          throw bodyReturnedPromise();
        }
      } catch (error) {
        this.#failure ??= error as GraphError;
        throw error;
      } finally {
        this.#scope = scope;
      }
      return body.engine.seal();
    });
    this.#check();
    const node = this.#refusing(() => scope.graph.engine.addConditional(type, condition, bodies, bound, scope.last ? [scope.last] : []));
    scope.last = node;
    if (bound) this.pending.push(this.#loadBuiltins());
  }

  /** Runs `check`; a GraphError it throws ends the capture, as a forbidden call does. */
  #refusing<T>(check: () => T): T {
    try {
      return check();
    } catch (error) {
      if (error instanceof GraphError) this.#failure ??= error;
      throw error;
    }
  }

  /** Why the capture ended early, if it did. */
  get failure(): GraphError | undefined {
    return this.#failure;
  }

  record(event: RecordedEvent): boolean {
    this.#check();
    this.add(this.graph.engine.eventWork('record', event));
    return true;
  }

  wait(event: RecordedEvent): boolean {
    this.#check();
    this.add(this.graph.engine.eventWork('wait', event));
    return true;
  }

  /** A JavaScript step: the graph's next segment starts after it. */
  step(run: () => unknown, name: string, timeout: number | undefined): boolean {
    this.#check();
    this.#refusing(() => this.#scope.graph.engine.step({ run, name, timeout }));
    this.#scope.last = undefined;
    return true;
  }

  /** rxcuda's own commands (frees, completion points) go to the device as usual. */
  beforeRun(): void {}

  /** The graph cannot hold memory allocated on the stream meanwhile: the capture ends. */
  allocation(): never {
    this.interrupt('An allocation');
  }

  /** Ends the capture, refusing `what`; every later call on the stream is refused the same way. */
  interrupt(what: string): never {
    const error = new GraphError(
      'forbidden',
      `${what} cannot be captured into a graph, so the capture ended: do it before or after the capture ` +
        '(the stream itself stays usable once the capture function has returned)',
    );
    this.#failure ??= error; // what the capture rejects with: the first that ended it
    throw error;
  }

  #check(): void {
    if (this.#failure) throw this.#failure;
  }

  protected add(work: NodeWork): void {
    this.#check();
    const scope = this.#scope;
    scope.last = this.#refusing(() => scope.graph.engine.add(work, scope.last ? [scope.last] : []));
    if (work.kind === 'library' && work.call.pending) this.pending.push(work.call.pending);
  }
}

/**
 * Refuses a capture started inside another capture's function.
 * @throws GraphError (`nested`).
 */
function checkNotNested(): void {
  if (running.getStore()?.active)
    throw new GraphError('nested', 'Captures cannot nest: this capture was started inside the function of another one');
}

/**
 * Runs `body` with `capture` as the running capture; resolves to the captured graph, or
 * rejects with what `body` threw or what ended the capture (the graph is closed then). `end` runs
 * when `body` has settled, whatever it did.
 */
async function runCapture<G extends CapturedGraph>(capture: Capture<G>, body: () => unknown, end: () => void): Promise<G> {
  const scope = { active: true };
  try {
    await running.run(scope, body);
  } catch (error) {
    capture.graph.close();
    throw error;
  } finally {
    await Promise.all(capture.strays); // what an async body gives the stream later is refused, not enqueued
    scope.active = false;
    end();
  }
  if (capture.failure) {
    capture.graph.close();
    throw capture.failure;
  }
  try {
    await Promise.all(capture.pending); // a cuFFT plan that failed to be made fails the capture
  } catch (error) {
    capture.graph.close();
    throw error;
  }
  return capture.graph;
}

/**
 * Checks the conditions among a kernel's arguments for a recording whose conditions live in
 * `scope`; a recording without one (a replayed value's) takes none.
 * @throws GraphError (`condition`).
 */
function checkConditionsRecorded(args: readonly unknown[], scope: ConditionScope | undefined): void {
  if (scope) return checkConditionArgs(args, scope);
  throw new GraphError('condition', "A kernel that takes a condition is recorded by replay or a pipeline's body, where no graph made it: launch it inside stream.capture (a pipeline loops with loopOnDevice)");
}

function alreadyCapturing(): never {
  throw new GraphError('capturing', 'The stream is already capturing: end that capture first');
}

/**
 * What {@link Stream.capture} does once `fn` is checked: records what `lane` is given while `body`
 * runs into the graph `makeGraph` makes (made once the capture may start); `loadBuiltins` loads
 * the device's condition kernels, once the capture records a node that needs them.
 * @throws GraphError (`capturing`, `nested`); the Promise rejects with a TypeError for a closed
 * lane, or with what `body` threw or what ended the capture.
 */
export function captureOn<G extends CapturedGraph>(lane: StreamEngine<Recorder>, makeGraph: () => G, loadBuiltins: () => Promise<unknown>, body: () => unknown): Promise<G> {
  const refused = refusal(() => lane.checkOpen());
  if (refused) return refused;
  if (lane.recorder) alreadyCapturing();
  checkNotNested();
  const capture = new Capture(makeGraph(), loadBuiltins);
  lane.recorder = capture;
  return runCapture(capture, body, () => (lane.recorder = undefined));
}

/**
 * Records the work given to `lane` into `recorder` (a GraphRecorder: it takes what kernels and
 * libraries hand over too, see device/recorder.ts) until {@link endRecording} (the `replay`
 * operator's recording of one value).
 * @throws GraphError (`capturing`) while the lane captures.
 */
export function recordInto(lane: StreamEngine<Recorder>, recorder: GraphRecorder): void {
  if (lane.recorder) alreadyCapturing();
  lane.recorder = recorder;
}

/** Ends {@link recordInto}'s recording into `recorder` (nothing, when another took its place). */
export function endRecording(lane: StreamEngine<Recorder>, recorder: GraphRecorder): void {
  if (lane.recorder === recorder) lane.recorder = undefined;
}

/**
 * The capture that the conditional member `method` of a stream records into (see
 * {@link Stream.ifThen}).
 * @throws TypeError for a closed lane; GraphError (`condition`) when it is not capturing.
 */
export function captureOf(lane: StreamEngine<Recorder>, method: string): Capture {
  lane.checkOpen();
  if (!(lane.recorder instanceof Capture))
    throw new GraphError('condition', `stream.${method}() records into the graph being captured: call it inside stream.capture()`);
  return lane.recorder;
}

/** A conditional node's body function, checked, to call with `stream`. */
export function checkBody<S>(stream: S, name: string, fn: unknown): () => unknown {
  if (typeof fn !== 'function') typeError(name, 'a function', fn);
  return () => (fn as (stream: S) => unknown)(stream);
}
