// What graphs add to the device layer's classes: Device's createGraph and Stream's capture, and
// the recording a replayed value's work goes into. Added here, where graphs are known.
import { GraphError, typeError } from '../base/errors.js';
import { refusal } from '../base/thenable.js';
import { Device } from '../device/device.js';
import type { Recorder } from '../device/recorder.js';
import { Stream } from '../device/stream.js';
import { Capture, checkNotNested, runCapture } from './capture.js';
import { Graph } from './graph.js';

declare module '../device/device.js' {
  interface Device {
    /**
     * An empty graph, to build node by node (see {@link Graph}); {@link Stream.capture} records one
     * from a stream's work instead.
     * @example
     * using graph = device.createGraph();
     * const zeroed = graph.addFill(x, 0);
     * graph.addKernel(scale, { grid: 4, block: 256 }, [n, 2, x], { after: [zeroed] });
     * using exec = graph.instantiate();
     * exec.launch(stream);
     */
    createGraph(): Graph;
  }
}

declare module '../device/stream.js' {
  interface Stream {
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
    capture(fn: (stream: this) => unknown): Promise<Graph>;
  }
}

Device.prototype.createGraph = function createGraph(this: Device): Graph {
  this.checkUsable();
  return Graph.create(this);
};

function alreadyCapturing(): never {
  throw new GraphError('capturing', 'The stream is already capturing: end that capture first');
}

Stream.prototype.capture = function capture(this: Stream, fn: (stream: Stream) => unknown): Promise<Graph> {
  if (typeof fn !== 'function') typeError('fn', 'a function', fn);
  const lane = this.lane;
  const refused = refusal(() => lane.checkOpen());
  if (refused) return refused;
  if (lane.recorder) alreadyCapturing();
  checkNotNested();
  const capture = (lane.recorder = new Capture(this.device));
  return runCapture(capture, () => fn(this), () => (lane.recorder = undefined));
};

/**
 * Records the work given to `stream` into `recorder` until {@link endRecording} (the `replay`
 * operator's recording of one value).
 * @throws GraphError (`capturing`) while the stream captures.
 */
export function recordInto(stream: Stream, recorder: Recorder): void {
  const lane = stream.lane;
  if (lane.recorder) alreadyCapturing();
  lane.recorder = recorder;
}

/** Ends {@link recordInto}'s recording into `recorder` (nothing, when another took its place). */
export function endRecording(stream: Stream, recorder: Recorder): void {
  if (stream.lane.recorder === recorder) stream.lane.recorder = undefined;
}
